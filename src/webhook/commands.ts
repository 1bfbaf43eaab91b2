/**
 * The `/autopilot` grammar (README, "Slack"): parsing a slash command's text into
 * a typed command, or into a usage error that says what was wrong and how to write it.
 * Identifiers are checked here, before anything uses them, so no odd value ever reaches a
 * URL path, a log line or the queue.
 */
import { actionRequestSchemas } from '../actions/request.js';
import type { ChatGrant } from '../policy/schema.js';
import { cutCodePoints, showInvisible } from '../slack/mrkdwn.js';
import { scrubSecrets } from '../util/secret-scrub.js';

export type Command =
  | { name: 'help' }
  | { name: 'approve'; triggerId: string; phaseId: string; reason?: string }
  | { name: 'disable-groups'; experimentId: string; groups: string[] }
  | { name: 'archive'; configId: string; reason?: string }
  | { name: 'role'; roleId: string }
  | { name: 'segment'; segmentId: string }
  | { name: 'segments'; page: number }
  | { name: 'metrics'; eventName: string }
  | { name: 'events'; page: number }
  | { name: 'pause'; reason?: string }
  | { name: 'resume' }
  | { name: 'status' }
  | { name: 'why'; requestId: string }
  | { name: 'held'; after?: string }
  | { name: 'cancel'; requestId: string; reason?: string };

export type CommandName = Command['name'];

export interface CommandSpec {
  name: CommandName;
  usage: string;
  summary: string;
  /** The chat grant the command needs; reads need none. */
  grant?: ChatGrant;
}

/** Every command, in the order `help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: 'help', usage: 'help', summary: 'what you can do here' },
  {
    name: 'status',
    usage: 'status',
    summary: 'pause state, queue depth, what is held and why, and the policy in short',
  },
  { name: 'why', usage: 'why <requestId>', summary: "a request's whole story: decisions, rules, outcome" },
  {
    name: 'held',
    usage: 'held [after <requestId>]',
    summary: 'what is held and why, by request id, a page at a time',
  },
  {
    name: 'cancel',
    usage: 'cancel <requestId> [reason…]',
    summary: 'cancel a held request (needs the grant for its action)',
  },
  { name: 'role', usage: 'role <roleId>', summary: 'a role and its permissions' },
  { name: 'segment', usage: 'segment <segmentId>', summary: 'one segment' },
  { name: 'segments', usage: 'segments [page]', summary: 'all segments, a page at a time' },
  { name: 'metrics', usage: 'metrics <eventName>', summary: 'the metrics built on an event' },
  {
    name: 'events',
    usage: 'events [page]',
    // Only "latest" where it is: the reply says when the platform's order cannot be told (latest-events.ts).
    summary:
      'the latest logged events, newest first, a page at a time (or in the platform’s order, when it cannot be told)',
  },
  {
    name: 'approve',
    usage: 'approve <triggerId> <phaseId> [reason…]',
    summary: 'approve a release-pipeline phase',
    grant: 'approve_phase',
  },
  {
    name: 'disable-groups',
    usage: 'disable-groups <experimentId> <group>…',
    summary: 'disable experiment groups',
    grant: 'disable_groups',
  },
  {
    name: 'archive',
    usage: 'archive <configId> [reason…]',
    summary: 'archive a dynamic config',
    grant: 'archive_config',
  },
  { name: 'pause', usage: 'pause [reason…]', summary: 'stop all automated mutations', grant: 'pause' },
  { name: 'resume', usage: 'resume', summary: 'let automated mutations run again', grant: 'pause' },
];

const SPEC_BY_NAME = new Map(COMMANDS.map((spec) => [spec.name, spec]));

export function commandSpec(name: CommandName): CommandSpec {
  return SPEC_BY_NAME.get(name)!;
}

export type ParsedCommand =
  | { ok: true; command: Command }
  | { ok: false; error: string; usage?: string; name?: CommandName };

export const MAX_ID_LENGTH = 128;
export const MAX_REASON_LENGTH = 1000;
export const MAX_GROUPS = 50;
export const MAX_PAGE = 10_000;
const ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;

class UsageError extends Error {}

/** Slack escapes `&`, `<` and `>` in command text; reasons are kept as the person typed them. */
function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function checkId(value: string | undefined, what: string): string {
  if (value === undefined) throw new UsageError(`missing ${what}`);
  if (value.length > MAX_ID_LENGTH) {
    throw new UsageError(`${what} is longer than ${MAX_ID_LENGTH} characters`);
  }
  if (!ID.test(value)) {
    throw new UsageError(
      `${what} \`${preview(value)}\` may only hold letters, digits and _ . : - (starting with a letter or digit)`,
    );
  }
  return value;
}

function checkPage(value: string | undefined): number {
  if (value === undefined) return 1;
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAGE) {
    throw new UsageError(`page must be a whole number from 1 to ${MAX_PAGE}, got \`${preview(value)}\``);
  }
  return Number(value);
}

/**
 * `held` pages by the last request id shown (`after <requestId>`, the command the reply offers),
 * not by a page number: held requests come and go, and a page number's rows shifted between pages.
 */
function checkHeldCursor(args: string[]): { after?: string } {
  const [word, requestId, ...rest] = args;
  if (word === undefined) return {};
  if (word.toLowerCase() !== 'after')
    throw new UsageError(
      `the next page starts after the last id shown: \`held after <requestId>\`, not \`${preview(word)}\``,
    );
  noMore(rest);
  return { after: checkRequestId(requestId) };
}

function checkReason(words: string[]): string | undefined {
  if (words.length === 0) return undefined;
  // Control characters and U+FFFE/U+FFFF are not allowed in SQS message bodies: drop them here.
  const reason = unescapeSlack(words.join(' '))
    .replace(/[\p{Cc}\uFFFE\uFFFF]+/gu, ' ')
    .trim();
  if (reason === '') return undefined;
  if (reason.length > MAX_REASON_LENGTH) {
    throw new UsageError(`the reason is longer than ${MAX_REASON_LENGTH} characters`);
  }
  // A secret pasted into a reason is not stored, queued or shown to the channel (redaction.test.ts).
  return scrubSecrets(reason);
}

/**
 * A request id is checked by the action-request schema's own rule (src/actions/request.ts), not
 * a copy of it: `why` and `cancel` then accept exactly the ids a producer may send (CI ids may
 * start with `_` or hold `/` and `@`), and refuse the ones no request can carry. The schema's
 * words say what is wrong, so the message cannot contradict the rule.
 */
function checkRequestId(requestId: string | undefined): string {
  if (requestId === undefined) throw new UsageError('missing requestId');
  const checked = actionRequestSchemas().approvePhase.shape.requestId.safeParse(requestId);
  if (!checked.success) {
    const why = checked.error.issues.map((issue) => issue.message).join('; ');
    throw new UsageError(`requestId \`${preview(requestId)}\` is not valid: ${why}`);
  }
  return requestId;
}

function noMore(words: string[]): void {
  if (words.length > 0) throw new UsageError(`unexpected \`${preview(words.join(' '))}\``);
}

/**
 * A short, printable excerpt of user input for an error message, in a code span: cut on code points
 * (a cut by UTF-16 position left half of an emoji), before its invisible characters are shown as
 * `[U+202E]` (a bidi override turned our words after it around); line breaks and backticks as `?`.
 */
function preview(value: string): string {
  const cut = cutCodePoints(value, 40);
  const printable = showInvisible(cut).replace(/[\p{Cc}\u2028\u2029`]/gu, '?');
  return cut === value ? printable : `${printable}…`;
}

function build(name: CommandName, args: string[]): Command {
  switch (name) {
    case 'help':
    case 'resume':
    case 'status':
      noMore(args);
      return { name };
    case 'approve': {
      const triggerId = checkId(args[0], 'triggerId');
      const phaseId = checkId(args[1], 'phaseId');
      const reason = checkReason(args.slice(2));
      return reason === undefined ? { name, triggerId, phaseId } : { name, triggerId, phaseId, reason };
    }
    case 'disable-groups': {
      const experimentId = checkId(args[0], 'experimentId');
      const rest = args.slice(1);
      if (rest.length === 0) throw new UsageError('name at least one group');
      if (rest.length > MAX_GROUPS) throw new UsageError(`at most ${MAX_GROUPS} groups at a time`);
      const groups = [...new Set(rest.map((group) => checkId(group, 'group')))];
      return { name, experimentId, groups };
    }
    case 'archive': {
      const configId = checkId(args[0], 'configId');
      const reason = checkReason(args.slice(1));
      return reason === undefined ? { name, configId } : { name, configId, reason };
    }
    case 'role':
      noMore(args.slice(1));
      return { name, roleId: checkId(args[0], 'roleId') };
    case 'segment':
      noMore(args.slice(1));
      return { name, segmentId: checkId(args[0], 'segmentId') };
    case 'metrics':
      noMore(args.slice(1));
      return { name, eventName: checkId(args[0], 'eventName') };
    case 'why':
      noMore(args.slice(1));
      return { name, requestId: checkRequestId(args[0]) };
    case 'cancel': {
      const requestId = checkRequestId(args[0]);
      const reason = checkReason(args.slice(1));
      return reason === undefined ? { name, requestId } : { name, requestId, reason };
    }
    case 'held':
      return { name, ...checkHeldCursor(args) };
    case 'segments':
    case 'events':
      noMore(args.slice(1));
      return { name, page: checkPage(args[0]) };
    case 'pause': {
      const reason = checkReason(args);
      return reason === undefined ? { name } : { name, reason };
    }
  }
}

/** Parses the text after the slash command; empty text means `help`. Never throws. */
export function parseCommand(text: string): ParsedCommand {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  const [first, ...args] = words;
  if (first === undefined) return { ok: true, command: { name: 'help' } };
  const name = first.toLowerCase();
  const spec = SPEC_BY_NAME.get(name as CommandName);
  if (!spec) {
    return { ok: false, error: `unknown command \`${preview(first)}\`` };
  }
  try {
    return { ok: true, command: build(spec.name, args) };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return { ok: false, error: error.message, usage: spec.usage, name: spec.name };
  }
}
