/**
 * The policy's event rules (`sweeper.eventRules`): each rule matches events by globs on
 * `name`, `source`, `userID`, `value` and `metadata.*` paths (all given keys must match; a
 * missing field never matches), and then enqueues an action request built from its template,
 * notifies the channel, or both. Every rule is tried on every event (not first-match), so one
 * event can feed several rules. Building is pure; sending is the sweeper's job.
 */

import { type ActionRequest, actionRequestSchemas } from '../actions/request.js';
import type { EventRule } from '../policy/schema.js';
import { cutCodePoints, escapeMrkdwn, inlineCode, oneLine } from '../slack/mrkdwn.js';
import { globMatch } from '../util/glob.js';
import { formatIssues } from '../util/zod-issues.js';
import { eventField } from './event-fields.js';
import { canonicalJson, eventTime, shortHash, slug } from './identity.js';
import { fillTemplate } from './templates.js';
import type { EventLike } from './types.js';

export function ruleMatches(rule: EventRule, event: EventLike): boolean {
  for (const [path, pattern] of Object.entries(rule.match)) {
    const field = eventField(event, path);
    if (field === undefined || !globMatch(pattern, field)) return false;
  }
  return true;
}

/**
 * The request id of a rule's request for one event: the same event and rule always give the
 * same id, so a rerun after a crash re-sends the same request and the worker drops the copy.
 * The rule part is a slug plus a hash of the full name (two names may share a slug).
 */
export function ruleRequestId(ruleName: string, eventId: string): string {
  return `ev:${slug(ruleName, 32)}-${shortHash(ruleName, 6)}:${eventId}`;
}

export type BuiltRequest = { ok: true; request: ActionRequest } | { ok: false; reason: string };

/** The action request `rule` asks for on `event` (`eventId` from identity.ts), validated. */
export function buildRuleRequest(
  rule: EventRule,
  event: EventLike,
  eventId: string,
  now: Date,
): BuiltRequest {
  if (!rule.enqueue) return { ok: false, reason: 'the rule has no enqueue template' };
  const filled = fillTemplate(rule.enqueue, event);
  if (!filled.ok) {
    return {
      ok: false,
      reason: `missing field${filled.missing.length > 1 ? 's' : ''} ${filled.missing.join(', ')}`,
    };
  }
  const fields = filled.value as Record<string, unknown>;
  // The event's name (and an unreadable timestamp) in code spans of their own: bare, a name a
  // client chose under a glob (`release_*`) bolded or slanted the words of the question quoting it.
  const reason =
    fields.reason ??
    `event ${reasonCode(cutCodePoints(event.name, 200))} ${whenLogged(event, reasonCode)} matched rule "${rule.name}"`;
  const candidate = {
    version: 1,
    ...fields,
    // Words for people, filled from the event: cut to what a request takes (2000), or a long value
    // or name would make the request invalid and the event would be skipped.
    reason: typeof reason === 'string' ? cutReason(reason) : reason,
    requestedBy: { source: 'events', id: rule.name },
    requestedAt: now.toISOString(),
    requestId: ruleRequestId(rule.name, eventId),
  };
  const parsed = actionRequestSchemas().actionRequest.safeParse(candidate);
  if (!parsed.success)
    return { ok: false, reason: `not a valid action request: ${formatIssues(parsed.error.issues)}` };
  return { ok: true, request: parsed.data };
}

/** The channel message for a `notify` rule: short, one line of facts and the rule's name. */
export function ruleNotification(rule: EventRule, event: EventLike): string {
  const when = whenLogged(event, inlineCode);
  // Every field of a logged event is untrusted (client SDKs write them): escaped, on one line (a
  // line break would let the client write lines of its own under ours), cut (a post past Slack's
  // size is refused whole), and in code spans (`*`, `_`, `~` in them formatted our words). The name
  // is bold, without its `*` and backticks: a backtick there paired with the one opening the value's
  // span, and the value after our words was formatting again.
  const name = oneLine(cutCodePoints(event.name, 120)).replace(/\*/g, '').replace(/`/g, "'");
  const parts = [`*${escapeMrkdwn(name)}*`];
  if (event.value) parts.push(`value ${inlineCode(cutCodePoints(event.value, 80))}`);
  if (event.source) parts.push(`from ${inlineCode(cutCodePoints(event.source, 80))}`);
  if (event.userID) parts.push(`user ${inlineCode(cutCodePoints(event.userID, 80))}`);
  const metadata = Object.entries(event.metadata ?? {})
    .slice(0, 6)
    .map(([key, value]) =>
      inlineCode(
        `${cutCodePoints(key, 40)}=${cutCodePoints(String(typeof value === 'object' ? canonicalJson(value) : value), 60)}`,
      ),
    )
    .join(', ');
  return `${parts.join(' ')} ${when}${metadata ? ` (${metadata})` : ''} — rule "${escapeMrkdwn(oneLine(rule.name))}"`;
}

/**
 * When the event says it was logged (`at …`), as the sweeper reads timestamps (`eventTime`): `Number` took
 * '' (a timestamp the client left out) for 1970-01-01 and "0x10" for 16 ms, a date the event never
 * had. Anything else is said to be unreadable, cut and quoted by `quote` (a notice: in a code span,
 * for quoted bare `_approved by the RM_` read as our words in italics).
 */
function whenLogged(event: EventLike, quote = (raw: string) => `"${raw}"`): string {
  const ms = eventTime(event);
  if (!Number.isNaN(ms)) return `at ${new Date(ms).toISOString()}`;
  const raw = String(event.timestamp ?? '').trim();
  return raw === '' ? 'with no timestamp' : `with an unreadable timestamp ${quote(cutCodePoints(raw, 40))}`;
}

/**
 * Untrusted text as a code span inside a request's reason: raw (the reason is plain text, escaped
 * wherever it is posted), on one line, without a backtick that would end the span.
 */
function reasonCode(text: string): string {
  return `\`${oneLine(text).replace(/`/g, "'")}\``;
}

const MAX_REASON = 2000;

function cutReason(reason: string): string {
  if (reason.length <= MAX_REASON) return reason;
  const cut = reason.slice(0, MAX_REASON - 1);
  // Not half of a surrogate pair: no JSON or Slack text takes one.
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}
