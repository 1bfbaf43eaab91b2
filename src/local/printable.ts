/**
 * Text from outside (event fields, platform errors, reasons, request paths) made safe to print on a
 * terminal: Slack shows such text inert, but a terminal obeys it (an escape sequence retitles or
 * clears it, a carriage return overwrites the line).
 */

/** Control characters (but the line break) and the bidirectional overrides and isolates that reorder a line. */
const UNPRINTABLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/** `text` with each such character shown as its escape (`\u001b`); line breaks kept. */
export const printable = (text: string): string =>
  text.replace(UNPRINTABLE, (c) => (c === '\n' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));

/** `printable`, on one line: line breaks shown as `\n`. */
export const printableLine = (text: string): string => printable(text).replaceAll('\n', '\\n');
