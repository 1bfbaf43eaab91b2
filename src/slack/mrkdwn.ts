/**
 * The one escaping helper for text we post to Slack. Slack's mrkdwn treats `&`, `<` and `>` as
 * control characters: `<!channel>`, `<!here>`, `<@U123>` and `<https://…|label>` are mentions and
 * links. Everything that did not come from our own templates (event fields, platform messages,
 * reasons people typed, ids, rule names) goes through `escapeMrkdwn` before it reaches a block or
 * a fallback `text`, so that nobody who can log an event or type a reason can ping a channel or
 * plant a link.
 */
import type { ActionRequest } from '../actions/request.js';
import { once } from '../util/once.js';

/** `&`, `<` or `>`: what `escapeMrkdwn` and `neutralizeMrkdwn` change. */
const MRKDWN_CONTROL = /[&<>]/;

/** Escapes `&`, `<` and `>` (in that order, so an escape is never escaped twice into meaning). */
export function escapeMrkdwn(text: string): string {
  // Tested first, here and in the helpers below: most text holds nothing to change, and a reply
  // runs a dozen of these (a test is a fraction of a replace that matches nothing).
  if (!MRKDWN_CONTROL.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Bidi embeddings, overrides, isolates and marks; zero-width spaces, joiners, word joiner, BOM. */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/gu;
/** `INVISIBLE` for a test (a global regex keeps its `lastIndex` between tests). */
const HAS_INVISIBLE = new RegExp(INVISIBLE.source, 'u');

/**
 * Untrusted text with its invisible characters shown as `[U+202E]`: a bidi override turned the
 * rest of our line around in the reader's client, and a zero-width space let a name pass for another.
 */
export function showInvisible(text: string): string {
  if (!HAS_INVISIBLE.test(text)) return text;
  return text.replace(INVISIBLE, (c, at: number) =>
    ordinaryJoiner(c, text, at) ? c : `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}

/**
 * What `ordinaryJoiner` reads, made on its first call (only text holding a joiner gets there), from
 * strings rather than literals: V8 checks a regex literal's Unicode property classes when it
 * compiles the bundle, ~0.6 ms for these three at every cold start of every function, used or not
 * (bench/REPORT.md, cold start); a string is parsed only when its RegExp is made.
 */
const unicodeRegExp = (source: string) => new RegExp(source, 'u');
const joinerPatterns = once(() => ({
  /** An emoji (with its skin tone or presentation selector) right before, one right after. */
  emojiBefore: unicodeRegExp(String.raw`\p{Extended_Pictographic}[\uFE0F\u{1F3FB}-\u{1F3FF}]?$`),
  emojiAfter: unicodeRegExp(String.raw`^\p{Extended_Pictographic}`),
  /** Scripts whose spelling asks for (non-)joiners between letters: Persian, Urdu, the Indic ones. */
  joiningScript: unicodeRegExp(
    String.raw`[\p{Script=Arabic}\p{Script=Syriac}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]`,
  ),
}));

/**
 * A joiner that ordinary text holds, kept as written: inside an emoji sequence (👩‍💻, 🏳️‍🌈) and
 * between two letters of a script that spells with it (Persian می‌خواهم). Marked, those read as
 * text nobody wrote; neither can make a Latin name pass for another (a joiner there is shown).
 */
function ordinaryJoiner(c: string, text: string, at: number): boolean {
  if (c !== '\u200c' && c !== '\u200d') return false;
  const before = text.slice(Math.max(0, at - 4), at);
  const after = text.slice(at + 1, at + 3);
  const { emojiBefore, emojiAfter, joiningScript } = joinerPatterns();
  if (c === '\u200d' && emojiBefore.test(before) && emojiAfter.test(after)) return true;
  return joiningScript.test(before.slice(-1)) && joiningScript.test(after.slice(0, 1));
}

const LINE_BREAKING = /[\p{Cc}\u2028\u2029]/u;
const LINE_BREAKING_RUNS = /[\p{Cc}\u2028\u2029]+/gu;

/**
 * Untrusted text (raw, not escaped) on one line: control characters and Unicode line/paragraph
 * separators become one space each run, so nobody who writes it starts a line of their own under
 * ours; invisible characters are shown (`showInvisible`).
 */
export function oneLine(text: string): string {
  return showInvisible(LINE_BREAKING.test(text) ? text.replace(LINE_BREAKING_RUNS, ' ') : text);
}

/**
 * Untrusted text as a block quote (escaped, invisible characters shown): every line starts with
 * `> `, whichever line break ends the one before. Only `\n` was quoted: a `\r` or a Unicode line
 * separator started an unquoted line, which the writer could make look like one of ours.
 */
export function quoteLines(text: string): string {
  return showInvisible(escapeMrkdwn(text))
    .split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/)
    .map((line) => `> ${line.replace(/\p{Cc}/gu, ' ')}`)
    .join('\n');
}

/**
 * The first `max` characters (code points) of untrusted text. A cut by `.slice` counts UTF-16 units
 * and could fall inside an emoji: the reader got half a character (a lone surrogate, shown as
 * garbage, and refused by a strict JSON reader). Cut raw text with this, before `oneLine` marks it.
 */
export function cutCodePoints(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  let count = 0;
  for (const char of text) {
    if (count++ === max) break;
    out += char;
  }
  return out;
}

/** Inline code for any input: escaped, on one line, without a backtick that would end the span. */
export function inlineCode(text: string): string {
  const flat = oneLine(text);
  return `\`${escapeMrkdwn(flat.includes('`') ? flat.replace(/`/g, "'") : flat)}\``;
}

/**
 * What a request does, in mrkdwn: every id and group name in a code span of its own. Ids and group
 * names come from producers (an event rule fills them from client-logged metadata; group names are
 * checked for length only): bare, a line break wrote a line of the producer's choosing under ours,
 * and a backtick or asterisk formatted our words around it.
 */
export function actionWords(request: ActionRequest): string {
  switch (request.action) {
    case 'approve_phase':
      return `approve phase ${inlineCode(request.phaseId)} of trigger ${inlineCode(request.triggerId)}`;
    case 'disable_groups':
      return `disable groups ${request.groupNames.map(inlineCode).join(', ')} of experiment ${inlineCode(request.experimentId)}`;
    case 'archive_config':
      return `archive config ${inlineCode(request.configId)}`;
  }
}

/**
 * A reason (plain text, as the policy and the worker write it for every reader) in mrkdwn, with
 * the request's ids in code spans of their own as `actionWords` shows them: each place that names
 * the trigger, phase, experiment, groups or config (`trigger <id>`, `config <id>`, …) or the
 * requester keeps its words, and only the id becomes `inlineCode`; the rest is escaped on one line.
 * Ids come from producers (an event rule's template, a CI requester): only escaped, an `*`, `_`,
 * `~` or backtick in one formatted the reply's and the question's words around it.
 */
export function reasonMrkdwn(reason: string, request: ActionRequest, requester?: string): string {
  const phrases = reasonIdPhrases(request, requester).filter(([raw]) => raw.length > 0);
  let out = '';
  let plain = '';
  let at = 0;
  while (at < reason.length) {
    let best: [string, string] | undefined;
    for (const phrase of phrases)
      if ((!best || phrase[0].length > best[0].length) && reason.startsWith(phrase[0], at)) best = phrase;
    if (!best) {
      plain += reason[at];
      at += 1;
      continue;
    }
    out += plainWords(plain) + best[1];
    plain = '';
    at += best[0].length;
  }
  return out + plainWords(plain);
}

/**
 * A reason's words between its ids: escaped on one line, a backtick made a quote (as `inlineCode`
 * makes one): left, it opened a code span that the next id's span closed, and that id stood bare.
 */
function plainWords(text: string): string {
  const flat = escapeMrkdwn(oneLine(text));
  return flat.includes('`') ? flat.replace(/`/g, "'") : flat;
}

/** Each way a reason names one of the request's ids (raw), with its words and the id in a code span. */
function reasonIdPhrases(request: ActionRequest, requester?: string): [string, string][] {
  const named = (word: string, id: string): [string, string] => [
    `${word} ${id}`,
    `${word} ${inlineCode(id)}`,
  ];
  const phrases: [string, string][] = requester ? [[requester, inlineCode(requester)]] : [];
  switch (request.action) {
    case 'approve_phase':
      phrases.push(named('trigger', request.triggerId), named('phase', request.phaseId));
      break;
    case 'disable_groups': {
      phrases.push(named('experiment', request.experimentId));
      const sorted = [...request.groupNames].sort();
      for (const [names, join] of [
        [sorted, ','],
        [request.groupNames, ', '],
        [request.groupNames, ','],
      ] as const)
        phrases.push([`groups ${names.join(join)}`, `groups ${names.map(inlineCode).join(join)}`]);
      break;
    }
    case 'archive_config':
      phrases.push(named('config', request.configId));
      break;
  }
  return phrases;
}

/**
 * For text that may mix our escaped templates with raw input (fallback `text`, a problem
 * message): escapes what is not escaped yet, leaving `&amp;`, `&lt;` and `&gt;` as they are,
 * so that nothing in it can become a mention or a link and nothing is escaped twice.
 */
export function neutralizeMrkdwn(text: string): string {
  if (!MRKDWN_CONTROL.test(text)) return text;
  return text
    .replace(/&(?!(?:amp|lt|gt);)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** Slack's limit for the text of a section or of a context element: past it the whole post is refused. */
export const BLOCK_TEXT_LIMIT = 3000;

/**
 * `text` (mrkdwn, escaped already) cut to at most `max` characters with an ellipsis. Slack refuses
 * a whole message (`invalid_blocks`) for one text past its limit, so a post quoting something long
 * is cut rather than lost. The cut never splits an escape (`&am…` would show as text), a
 * surrogate pair, or one of our own `<…>` tokens (a date), the only `<` escaped text still holds.
 * A cut inside a code span closes it (after the ellipsis): left open, its backtick showed as text
 * and the span's words lost their formatting. Spans are on one line, so only the last line counts.
 */
export function cutMrkdwn(text: string, max = BLOCK_TEXT_LIMIT): string {
  if (text.length <= max) return text;
  const cut = cutBefore(text, max - 1);
  if (!inCodeSpan(cut)) return `${cut}…`;
  // One more character for the closing backtick (the span may then start right at the cut).
  const shorter = cutBefore(text, max - 2);
  return inCodeSpan(shorter) ? `${shorter}…\`` : `${shorter}…`;
}

/** `text` cut to at most `end` characters, never inside an escape, a surrogate pair or a `<…>` token. */
function cutBefore(text: string, end: number): string {
  let cut = text.slice(0, end);
  if (cut.lastIndexOf('<') > cut.lastIndexOf('>')) cut = cut.slice(0, cut.lastIndexOf('<'));
  return cut.replace(/&[a-z]{0,3}$/, '').replace(/[\uD800-\uDBFF]$/, '');
}

/** Whether `text` ends inside an inline code span: an odd number of backticks on its last line. */
function inCodeSpan(text: string): boolean {
  return ((text.slice(text.lastIndexOf('\n') + 1).match(/`/g) ?? []).length & 1) === 1;
}
