/**
 * What people read: Block Kit messages for every outcome (what happened, which rule, why, and
 * for deferrals and denials when), and the "Ask a human" message with Approve/Deny buttons
 * whose value carries the original request back to the webhook.
 */
import { type ActionRequest, requesterKey } from '../actions/request.js';
import { buttonRequest, encodeButtonValue } from '../slack/button-value.js';
import {
  actionWords,
  inlineCode as code,
  cutMrkdwn,
  escapeMrkdwn as escapeSlack,
  oneLine,
  quoteLines,
  reasonMrkdwn,
} from '../slack/mrkdwn.js';
import type { SlackMessage } from '../slack/post.js';

/** Every way a request can end (or pause), as stored in audit records and replies. */
export type OutcomeResult =
  | 'approved'
  | 'groups-disabled'
  | 'archived'
  | 'would-mutate'
  | 'denied'
  | 'deferred'
  | 'asked'
  | 'stale'
  | 'rejected'
  | 'cancelled';

/** Results that end a request: its copies replay them. Deferred and asked come back. */
export const FINAL_RESULTS: ReadonlySet<OutcomeResult> = new Set<OutcomeResult>([
  'approved',
  'groups-disabled',
  'archived',
  'would-mutate',
  'denied',
  'stale',
  'rejected',
  'cancelled',
]);

export interface OutcomeReport {
  request: ActionRequest;
  requestId: string;
  result: OutcomeResult;
  rule: string;
  reason: string;
  dryRun: boolean;
  deferUntil?: Date;
  /** Set when this is a replay of an earlier request's stored outcome (no new API call). */
  replayOf?: string;
  /**
   * An end an earlier attempt may have carried out already: a denial (`mayHaveBeenDone`), a
   * refusal or a stale phase after an attempt whose answer was lost. As stored with the final.
   */
  mayHaveBeenDone?: boolean | undefined;
}

/** A date Slack renders in the reader's own time zone, with a UTC fallback. */
export function slackDate(date: Date): string {
  const epoch = Math.floor(date.getTime() / 1000);
  const fallback = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${epoch}^{date_short_pretty} {time}|${fallback}>`;
}

/** Untrusted words (a reason quoting the platform or a group name) escaped, on one line. */
const flat = (text: string) => escapeSlack(oneLine(text));

/** The reason, escaped on one line, with the request's ids (and its requester) in code spans. */
const reasonWords = (report: Pick<OutcomeReport, 'request' | 'reason'>) =>
  reasonMrkdwn(report.reason, report.request, requesterKey(report.request.requestedBy));

function headline(report: OutcomeReport): string {
  const what = actionWords(report.request);
  const prefix = report.dryRun ? '[dry run] ' : '';
  switch (report.result) {
    case 'approved':
    case 'groups-disabled':
    case 'archived':
      return report.replayOf
        ? `:white_check_mark: Already done: ${what} (by request ${code(report.replayOf)})`
        : `:white_check_mark: Done: ${what}`;
    case 'would-mutate':
      return `:test_tube: ${prefix}Would ${what}; nothing was changed`;
    case 'denied':
      // Never "Denied" for a change an earlier attempt may have made: it is only no longer tried.
      return report.mayHaveBeenDone
        ? `:warning: ${prefix}No longer tried, but it may have been done: ${what}`
        : `:no_entry: ${prefix}Denied: ${what}`;
    case 'deferred':
      return `:hourglass_flowing_sand: ${prefix}Deferred: ${what}${report.deferUntil ? `; next look ${slackDate(report.deferUntil)}` : ''}`;
    case 'asked':
      return `:raising_hand: ${prefix}Asked a human to decide: ${what}`;
    case 'stale':
      return `:warning: Stale: ${what}; the phase is not the trigger's current phase`;
    case 'rejected':
      // A refusal of a retry whose earlier attempt got no answer: that attempt may have done it.
      // As stored with the end; only an end stored before the field was (undefined) is read by its
      // words (can go 90 days after every deployment stores it: finals expire then).
      return (report.mayHaveBeenDone ?? saysMayHaveReached(report.reason))
        ? `:warning: The Console API refused to ${what}, but an earlier attempt may have done it`
        : `:x: The Console API refused to ${what}`;
    case 'cancelled':
      return `:wastebasket: Cancelled while held: ${what}; it will not be done`;
  }
}

/** The plain-text fallback: also what the structured log and tests read. Escaped like the blocks. */
export function outcomeText(report: OutcomeReport): string {
  return `${headline(report)}. Rule: ${escapeSlack(report.rule)}. Why: ${reasonWords(report)}`;
}

export function outcomeMessage(report: OutcomeReport): SlackMessage {
  const context = [
    `rule *${escapeSlack(report.rule)}*`,
    `requested by ${code(requesterKey(report.request.requestedBy))}`,
    `request ${code(report.requestId)}`,
  ];
  if (report.dryRun) context.push('dry run');
  return {
    text: outcomeText(report),
    response_type: 'in_channel',
    replace_original: false,
    blocks: [
      // Cut to Slack's limit: a reason quoting the platform, or many long group names, got the whole post refused.
      {
        type: 'section',
        text: { type: 'mrkdwn', text: cutMrkdwn(`${headline(report)}\n${reasonWords(report)}`) },
      },
      { type: 'context', elements: [{ type: 'mrkdwn', text: cutMrkdwn(context.join(' · ')) }] },
    ],
  };
}

/** The "Ask a human" message: the question, the rule that asks, and Approve/Deny buttons. */
export function askMessage(
  request: ActionRequest & { requestId: string },
  decision: { rule: string; reason: string; dryRun?: boolean },
): SlackMessage | undefined {
  const carried = buttonRequest(request);
  if (!carried) return undefined;
  const value = encodeButtonValue(carried);
  const requester = requesterKey(request.requestedBy);
  const why = request.reason ? `\n${quoteLines(request.reason)}` : '';
  // A dry run's question says so: answering it changes nothing, and its Deny vetoes dry runs only.
  const rehearsal = decision.dryRun ? 'Dry run (nothing will be changed): ' : '';
  const text = `${rehearsal}Approval needed: ${actionWords(request)}, requested by ${code(requester)}.`;
  return {
    text: `${text} Rule: ${escapeSlack(decision.rule)}.`,
    blocks: [
      // Cut to Slack's limit (the reason comes last, so it goes first): else the question is refused whole.
      { type: 'section', text: { type: 'mrkdwn', text: cutMrkdwn(`:raising_hand: *${text}*${why}`) } },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: cutMrkdwn(
              `rule *${escapeSlack(decision.rule)}*: ${reasonWords({ request, reason: decision.reason })} · request ${code(request.requestId)}`,
            ),
          },
        ],
      },
      {
        type: 'actions',
        block_id: 'autopilot_decision',
        elements: [
          {
            type: 'button',
            action_id: 'autopilot_approve',
            style: 'primary',
            text: { type: 'plain_text', text: 'Approve' },
            value,
          },
          {
            type: 'button',
            action_id: 'autopilot_deny',
            style: 'danger',
            text: { type: 'plain_text', text: 'Deny' },
            value,
          },
        ],
      },
    ],
  };
}

/** A request whose record failed on every receive: SQS moves it to the DLQ (src/worker/give-up.ts). */
export interface GivenUpReport {
  request: ActionRequest;
  requestId: string;
  /** Receives of the record, each a failed attempt. */
  attempts: number;
  /** The last failure, scrubbed of secrets. */
  lastFailure: string;
  /** A Console API call may have reached the platform: the change may have been made after all. */
  mayHaveReached: boolean;
  /** An Approve click's copy that reached nothing: its question is open again. */
  questionReopened?: boolean;
}

/** Where a given-up request waits, and the command an operator starts from. */
const GIVEN_UP_WHERE = 'it waits in the dead-letter queue for an operator (`autopilot dlq list`)';
const MAY_HAVE_REACHED =
  'an attempt may have reached the Console API: check whether the change was made before asking again';

/**
 * A denial (an expiry, a freeze, …) of a request whose own attempt, or the attempt of the Approve
 * click answering it, may have reached the platform (its held item's `reachedAt`, set when such
 * an attempt was given up or is retried, or its effect's claim: a retry, a copy redriven from the
 * DLQ): it is no longer tried, but the change may have been made, so it says so and asks to check,
 * as the give-up notice does. Said once: a reason that says it already (a stored end told again,
 * a question ended by such a copy) is not told twice.
 */
export function mayHaveBeenDone<T extends { result: OutcomeResult; reason: string }>(done: T): T {
  if (done.result !== 'denied') return done;
  return { ...done, reason: withMayHaveReached(done.reason), mayHaveBeenDone: true };
}

/**
 * Whether `reason` says an attempt may have reached the platform (`withMayHaveReached`,
 * `givenUpReason`): an end told so may be a change made, whatever its result says.
 */
export function saysMayHaveReached(reason: string): boolean {
  return reason.includes(MAY_HAVE_REACHED);
}

/** `reason`, saying (once) that an attempt may have reached the platform and asking to check. */
export function withMayHaveReached(reason: string): string {
  return reason.includes(MAY_HAVE_REACHED) ? reason : `${reason}; but ${MAY_HAVE_REACHED}`;
}

function givenUpHeadline(report: GivenUpReport): string {
  // "Could not" only when no call may have made the change: never tell someone it was not done when it may have been.
  const verb = report.mayHaveReached ? 'Gave up trying to' : 'Could not';
  return `:rotating_light: ${verb} ${actionWords(report.request)} after ${report.attempts} attempts`;
}

/** Why, as the audit record keeps it (plain text, the trail's own style). */
export function givenUpReason(report: Omit<GivenUpReport, 'request' | 'requestId'>): string {
  const maybe = report.mayHaveReached ? `; ${MAY_HAVE_REACHED}` : '';
  return `gave up after ${report.attempts} attempts (last: ${report.lastFailure}); kept in the dead-letter queue for an operator (autopilot dlq list)${maybe}`;
}

/** The reply: what could not be done, the last failure, and that it waits in the DLQ for an operator. */
export function givenUpMessage(report: GivenUpReport): SlackMessage {
  const maybe = report.mayHaveReached ? ` ${MAY_HAVE_REACHED.replace(/^a/, 'A')}.` : '';
  const last = `(last: ${flat(report.lastFailure)})`;
  const reopened = report.questionReopened ? ' The question it answered is open again.' : '';
  const text = `${givenUpHeadline(report)} ${last}; ${GIVEN_UP_WHERE}.${maybe}${reopened}`;
  const context = [
    'rule *retries-exhausted*',
    `requested by ${code(requesterKey(report.request.requestedBy))}`,
    `request ${code(report.requestId)}`,
  ];
  return {
    text,
    response_type: 'in_channel',
    replace_original: false,
    blocks: [
      // Cut to Slack's limit: a long last failure got the whole notice refused.
      { type: 'section', text: { type: 'mrkdwn', text: cutMrkdwn(text) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: cutMrkdwn(context.join(' · ')) }] },
    ],
  };
}
