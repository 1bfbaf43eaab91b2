/**
 * Step 7 of a decision: the action's own rules. Approvals: the first matching rule, its windows
 * (defer to the next opening, or deny) and `maxPerHour` (clock hours in the policy's zone); archive and disable-groups: the
 * section's requesters and `maxPerDay`. Rate limits come back as a counter for the worker to
 * increment atomically. Pure, like decide.ts.
 */
import type { ActionName, ActionRequest, ApprovePhaseRequest } from '../actions/request.js';
import { actionTarget, requesterKey } from '../actions/request.js';
import { matchesAny } from '../util/glob.js';
import type { Decision, DecisionCounter, Outcome } from './decide.js';
import { activeFreeze, firstMatchingRule, frozenUntil } from './rules.js';
import type { ApprovalRule, Policy } from './schema.js';
import { describeWindows } from './time-words.js';
import {
  closedBetween,
  isWithinWindows,
  nextWindowOpening,
  pad,
  wallDay,
  wallHour,
  wallTime,
} from './windows.js';

export const HOUR = 3_600_000;
const MINUTE = 60_000;

/**
 * How long before the request's expiry a wait must end to be promised. The worker does not look
 * at a held request at its `deferUntil` but when the release tick (an EventBridge rule every
 * minute, infra/autopilot-stack.ts RELEASE_TICK_MINUTES; a tick not started within 60 s is
 * dropped for the next) has sent it back and SQS has delivered it to a worker that may first
 * finish the batches queued before it: up to a few minutes in normal operation. A wait ending
 * closer to the expiry would be looked at only once the request has expired, and denied then
 * (maxDeferHours): "deferred until X" would be a promise the worker cannot keep.
 */
export const RELEASE_MARGIN_MS = 5 * MINUTE;

export const ACTION_WORDS: Record<ActionName, string> = {
  approve_phase: 'approve phases',
  disable_groups: 'disable experiment groups',
  archive_config: 'archive configs',
};

/** What every step of a decision works with. */
export interface Context {
  policy: Policy;
  now: number;
  requestedAt: number;
  expiresAt: number;
  zone: string;
  when: (instant: number) => string;
  result: (outcome: Outcome, rule: string, reason: string, extra?: Partial<Decision>) => Decision;
  /** What to do about the request once it expires: `afterExpiry` (decide.ts), the one home of these words. */
  afterExpiry: string;
}

type Windows = NonNullable<ApprovalRule['windows']>;

/**
 * Where a wait meant to end at `until` can end: never inside a freeze (the request would be
 * denied there, not decided again), and for a rule with windows when one is open. Past every
 * freeze in force then, to the next opening after it, as long as they follow each other.
 * Undefined when no window opens. Each turn leaves a freeze behind for good, so it ends.
 */
export function firstOpen(context: Context, until: number, windows?: Windows): number | undefined {
  let at = until;
  for (;;) {
    at = frozenUntil(context.policy, at);
    if (!windows || isWithinWindows(windows, at, context.zone)) return at;
    const opening = nextWindowOpening(windows, at, context.zone);
    if (opening === undefined) return undefined;
    at = opening;
  }
}

/** `; at … the freeze "x" is in force` when `until` is frozen and the wait was moved past it. */
function frozenNote(context: Context, until: number, at: number): string {
  const freeze = at > until ? activeFreeze(context.policy, until) : undefined;
  return freeze ? `; at ${context.when(until)} the freeze "${freeze.name}" is in force` : '';
}

/**
 * A deferral to `until` (or, when a freeze is in force then, to the first time after it that the
 * rule's `windows` are open), or a denial when that is past the request's expiry or within
 * `RELEASE_MARGIN_MS` of it (the worker would look again only once it had expired). The one home
 * of this rule: the worker, `policy test`/`explain` and `policy replay` all decide through it.
 */
export function deferOrExpire(
  context: Context,
  rule: string,
  why: string,
  until: number,
  windows?: Windows,
): Decision {
  const { when, result, expiresAt, policy, afterExpiry } = context;
  const at = firstOpen(context, until, windows);
  if (at === undefined)
    return result('deny', rule, `${why}; after the freezes no window opens in a week; denied`);
  const frozen = frozenNote(context, until, at);
  if (at > expiresAt - RELEASE_MARGIN_MS) {
    // Denied for its expiry ahead: the same words as an expiry met (a stale sweep asks again by itself).
    const tooClose =
      at > expiresAt
        ? ''
        : `, too close to be looked at again in time (a held request is looked at up to ${RELEASE_MARGIN_MS / MINUTE} minutes after its wait ends)`;
    return result(
      'deny',
      'maxDeferHours',
      `${why}${frozen}; rule "${rule}" would wait until ${when(at)}, but the request expires ${when(expiresAt)} ` +
        `(approvals.maxDeferHours = ${policy.approvals.maxDeferHours})${tooClose}; denied; ${afterExpiry}`,
    );
  }
  return result('defer', rule, `${why}${frozen}; deferred until ${when(at)}`, { deferUntil: new Date(at) });
}

export function decideApproval(context: Context, request: ApprovePhaseRequest): Decision {
  const { policy, now, zone, result } = context;
  const requester = requesterKey(request.requestedBy);
  const match = firstMatchingRule(policy, request);
  if (!match) {
    return result(
      'deny',
      'otherwise',
      `no approval rule matches ${requester} for trigger ${request.triggerId} phase ${request.phaseId}; ` +
        'the policy denies what no rule allows (approvals.otherwise)',
    );
  }
  const { rule } = match;
  if (rule.decision === 'deny') {
    return result(
      'deny',
      rule.name,
      `rule "${rule.name}" denies ${requester} approving ${actionTarget(request)}`,
    );
  }
  if (rule.decision === 'ask') {
    return result(
      'ask',
      rule.name,
      `rule "${rule.name}" asks a person: Approve or Deny in Slack (needs the chat grant "approve_phase")`,
    );
  }
  let inside = '';
  if (rule.windows) {
    const windowsText = `the rule's windows (${describeWindows(rule.windows, zone)})`;
    if (!isWithinWindows(rule.windows, now, zone)) {
      const outside = `outside ${windowsText}`;
      return whileClosed(
        context,
        rule,
        rule.windows,
        outside,
        now,
        `${outside}, and none of them opens in the next week; denied`,
      );
    }
    inside = ` inside ${windowsText}`;
  }
  const decision = result('approve', rule.name, `rule "${rule.name}" approves ${requester}${inside}`);
  if (rule.maxPerHour !== undefined) decision.counter = hourCounter(context, rule, rule.maxPerHour);
  return decision;
}

/** `HH:MM` of what a clock in `zone` shows; `end` reads the minute before (so midnight is 24:00, a jump's eve its own hour). */
function clockText(instant: number, zone: string, end = false): string {
  const w = wallTime(end ? instant - MINUTE : instant, zone);
  const minutes = w.hour * 60 + w.minute + (end ? 1 : 0);
  return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/**
 * The hour's counter: a clock hour in the policy's zone, as windows and maxPerDay are. It is
 * keyed by the hour's first instant in UTC: `2026-11-23T08` where the offset is whole hours (the
 * keys UTC hours always had), `2026-11-23T04:30` where it is not (Asia/Kolkata 10:00).
 */
function hourCounter(context: Context, rule: ApprovalRule, limit: number): DecisionCounter {
  const { start, end } = wallHour(context.now, context.zone);
  const iso = new Date(start).toISOString();
  const hour = start % HOUR === 0 ? iso.slice(0, 13) : iso.slice(0, 16);
  const span = `${clockText(start, context.zone)}–${clockText(end, context.zone, true)} ${context.zone}`;
  return {
    key: `rule#${rule.name}#hour#${hour}`,
    limit,
    windowStart: new Date(start),
    windowEnd: new Date(end),
    exceeded: hourExceeded(
      context,
      rule,
      `rule "${rule.name}" allows ${limit} approvals per hour and this hour's (${span}) are used up`,
      end,
    ),
  };
}

/**
 * What a request over the hour's limit gets: wait for the next hour, unless the rule's windows
 * are closed by then. Waiting for a closed hour could only end in the refusal the rule gives
 * outside its windows, so it gets that refusal now: wait for the next opening, or be denied.
 */
function hourExceeded(context: Context, rule: ApprovalRule, why: string, end: number): Decision {
  const { zone, when } = context;
  if (!rule.windows) return deferOrExpire(context, rule.name, why, end);
  const windowsText = `the rule's windows (${describeWindows(rule.windows, zone)})`;
  if (!isWithinWindows(rule.windows, end, zone)) {
    const closed = `${why}, and at ${when(end)} ${windowsText} are closed`;
    return whileClosed(context, rule, rule.windows, closed, end, `${closed}; denied`);
  }
  // A freeze at the hour's end moves the wait past it: a rule that denies outside its windows
  // must not wait, past a freeze lasting beyond their close, for a later opening (approved there).
  const unfrozen = frozenUntil(context.policy, end);
  if (rule.outsideWindows !== 'deny' || !closedBetween(rule.windows, end, unfrozen, zone))
    return deferOrExpire(context, rule.name, why, end, rule.windows);
  const again = firstOpen(context, unfrozen, rule.windows);
  return context.result(
    'deny',
    rule.name,
    `${why}${frozenNote(context, end, unfrozen)} until ${when(unfrozen)}, and ${windowsText} close before then; ` +
      `the rule denies outside its windows${again === undefined ? '' : `; ask again after ${when(again)}`}`,
  );
}

/**
 * A rule's answer for a time `at` when its windows are closed (`why` says so): wait for the next
 * opening, or be denied when the rule denies outside its windows (`noOpening` when none opens).
 */
function whileClosed(
  context: Context,
  rule: ApprovalRule,
  windows: Windows,
  why: string,
  at: number,
  noOpening: string,
): Decision {
  const { zone, when, result } = context;
  const opening = nextWindowOpening(windows, at, zone);
  if (opening === undefined) return result('deny', rule.name, noOpening);
  if (rule.outsideWindows === 'deny') {
    const open = firstOpen(context, opening, windows);
    const again =
      open === undefined ? '' : `; ask again after ${when(open)}${frozenNote(context, opening, open)}`;
    return result('deny', rule.name, `${why}; the rule denies outside its windows${again}`);
  }
  return deferOrExpire(context, rule.name, why, opening, windows);
}

export function decideAction(
  context: Context,
  request: Extract<ActionRequest, { action: 'disable_groups' | 'archive_config' }>,
): Decision {
  const { policy, now, zone, result } = context;
  const section = policy.actions[request.action];
  const rule = `actions.${request.action}`;
  const requester = requesterKey(request.requestedBy);
  if (!section) {
    return result(
      'deny',
      'otherwise',
      `the policy has no ${rule} section, so nobody may ${ACTION_WORDS[request.action]}; denied by default`,
    );
  }
  if (!matchesAny(section.requesters, requester)) {
    const allowed = section.requesters.length > 0 ? section.requesters.join(', ') : 'nobody';
    return result(
      'deny',
      rule,
      `${requester} is not among those allowed to ${ACTION_WORDS[request.action]} (${rule}.requesters: ${allowed})`,
    );
  }
  const decision = result(
    'approve',
    rule,
    `${requester} may ${ACTION_WORDS[request.action]} (${rule}.requesters): ${actionTarget(request)}`,
  );
  if (section.maxPerDay !== undefined) {
    const day = wallDay(now, zone);
    decision.counter = {
      key: `action#${request.action}#day#${day.date}`,
      limit: section.maxPerDay,
      windowStart: new Date(day.start),
      windowEnd: new Date(day.end),
      exceeded: deferOrExpire(
        context,
        rule,
        `${rule}.maxPerDay allows ${section.maxPerDay} per day and today's (${day.date} ${zone}) are used up`,
        day.end,
      ),
    };
  }
  return decision;
}
