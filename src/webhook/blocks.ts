/**
 * Block Kit rendering for replies: short sections, tables as monospace code blocks (they
 * stay aligned on every client), and paging hints. All text from users or the platform is
 * escaped, and everything is cut to Slack's limits (3000 characters a section, 50 blocks).
 */

export interface SlackBlock {
  type: string;
  [key: string]: unknown;
}

export interface SlackReply {
  response_type?: 'ephemeral' | 'in_channel';
  replace_original?: boolean;
  text: string;
  blocks?: SlackBlock[];
}

const SECTION_LIMIT = 2900;
const CELL_LIMIT = 40;

import { cutCodePoints, cutMrkdwn, escapeMrkdwn, neutralizeMrkdwn, oneLine } from '../slack/mrkdwn.js';

/** Inline code, safe for any input. */
export { escapeMrkdwn, inlineCode as code } from '../slack/mrkdwn.js';

// Cut by `cutMrkdwn`'s rules, never at a fixed place: the text is escaped already, and a plain
// slice split an `&amp;` (the reader saw "&a…", text nobody wrote) or one of our `<…>` tokens.
export function section(mrkdwn: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: cutMrkdwn(mrkdwn, SECTION_LIMIT) } };
}

/**
 * A header (plain text, Slack's limit 150): on one line with its invisible characters shown, as a
 * header may name what the platform holds; cut before the limit, never inside a surrogate pair.
 */
export function header(text: string): SlackBlock {
  const line = oneLine(text)
    .slice(0, 150)
    .replace(/[\uD800-\uDBFF]$/, '');
  return { type: 'header', text: { type: 'plain_text', text: line, emoji: false } };
}

export function contextLine(mrkdwn: string): SlackBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: cutMrkdwn(mrkdwn, SECTION_LIMIT) }] };
}

/** Label/value pairs as section fields (at most ten per section, Slack's limit). */
export function fields(pairs: Array<[string, string]>): SlackBlock[] {
  const blocks: SlackBlock[] = [];
  for (let i = 0; i < pairs.length; i += 10) {
    blocks.push({
      type: 'section',
      fields: pairs.slice(i, i + 10).map(([label, value]) => ({
        type: 'mrkdwn',
        text: cutMrkdwn(`*${escapeMrkdwn(label)}*\n${value === '' ? '–' : value}`, 1900),
      })),
    });
  }
  return blocks;
}

function cell(value: unknown): string {
  const text = value === undefined || value === null ? '' : String(value);
  // One line by the shared rule: a U+2028 broke a row, a bidi override turned the rest of it around.
  const flat = oneLine(text).replace(/`/g, "'");
  // Cut on code points: a cut by UTF-16 position left half of an emoji (a lone surrogate).
  return cutCodePoints(flat, CELL_LIMIT) === flat ? flat : `${cutCodePoints(flat, CELL_LIMIT - 1)}…`;
}

/** A table as a code block; rows that would pass Slack's section limit are dropped with a note. */
export function table(columns: string[], rows: unknown[][]): SlackBlock {
  return fittedTable(columns, rows).block;
}

/**
 * The table and how many of `rows` it shows (the first `shown`): a paged listing must continue
 * after the last row shown, not the last row read, or the dropped rows are never shown.
 */
export function fittedTable(columns: string[], rows: unknown[][]): { block: SlackBlock; shown: number } {
  const cells = [columns.map(cell), ...rows.map((row) => columns.map((_, i) => cell(row[i])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const lines = cells.map((row) =>
    row
      .map((value, i) => value.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  let body = '';
  let shown = 0;
  for (const line of lines) {
    const next = `${body}${escapeMrkdwn(line)}\n`;
    if (next.length > SECTION_LIMIT - 40) break;
    body = next;
    shown++;
  }
  const dropped = lines.length - shown;
  const note = dropped > 0 ? `(${dropped} more not shown)\n` : '';
  return { block: section(`\`\`\`\n${body}${note}\`\`\``), shown: Math.max(0, shown - 1) };
}

/** An ephemeral reply (only the caller sees it). The fallback text can hold no mention or link. */
export function ephemeral(text: string, blocks?: SlackBlock[]): SlackReply {
  const safe = neutralizeMrkdwn(text);
  return blocks
    ? { response_type: 'ephemeral', text: safe, blocks }
    : { response_type: 'ephemeral', text: safe };
}

/** A reply everybody in the channel sees (pause/resume). The fallback text can hold no mention or link. */
export function inChannel(text: string, blocks?: SlackBlock[]): SlackReply {
  const safe = neutralizeMrkdwn(text);
  return blocks
    ? { response_type: 'in_channel', text: safe, blocks }
    : { response_type: 'in_channel', text: safe };
}

/** A message from the platform or a person in plain words: a warning sign and one section. */
export function problem(text: string): SlackReply {
  return ephemeral(text, [section(`:warning: ${neutralizeMrkdwn(text)}`)]);
}
