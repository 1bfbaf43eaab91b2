/**
 * Following a wait in `policy replay`. Where the new policy defers a request, or asks a person
 * about it, where the old one did not, the worker would hold it and decide it again: a deferral at
 * the decision's `deferUntil`, a question at its hourly look (src/policy/ask-channel.ts, the
 * worker's own time for it), and again, until it is approved or denied (past `maxDeferHours` it
 * is denied; what a person would have answered is not known, so the chain is the one the worker
 * makes if nobody answers). replay.ts takes those later looks in time order with the recorded
 * decisions, so that a later approval takes its counter unit when it happens; this module keeps
 * the looks waiting and says how a followed chain ended. Pure.
 */
import type { ActionRequest } from '../actions/request.js';
import { ASK_RECHECK_MS, nextQuestionLook } from './ask-channel.js';
import { type Decision, expiryWords, type Outcome, requestExpiresAt } from './decide.js';
import type { Policy } from './schema.js';
import { formatInstant } from './time-words.js';

/**
 * The most times one request is decided again. The shortest wait a policy makes is 15 minutes
 * (a pause, the sweeper's reading), and `maxDeferHours` is at most 14 days: 1344 looks.
 */
export const MAX_LOOKS = 2000;

/** How a followed wait (a deferral or a question) ended under the new policy. */
export interface FollowedEnd {
  outcome: Outcome;
  rule: string;
  reason: string;
  dryRun: boolean;
  /** The look that ended it (ISO): the last `deferUntil` or hourly look at a question followed. */
  at: string;
  /** How long after the recorded decision (ms). */
  afterMs: number;
  /** How many times it was decided again after the recorded decision. */
  looks: number;
  /** Set when the replay stopped following a wait that had not ended: why. */
  notFollowed?: string;
}

/** The shortest and longest wait of the followed chains that ended one way (ms). */
export interface Delays {
  shortestMs: number;
  longestMs: number;
}

/** When to decide a deferral again: its `deferUntil`, if that is after `at` (a wait that does not advance is not followed). */
export function nextLookAt(decision: Decision, at: number): number | undefined {
  const until = decision.deferUntil?.getTime();
  return until !== undefined && Number.isFinite(until) && until > at ? until : undefined;
}

/**
 * When the worker decides a held request again, if after `at`: a deferral at its `deferUntil`, a
 * question at its next hourly look (the worker's rule); undefined for an end or a wait that does
 * not advance.
 */
export function nextLookOf(
  policy: Policy,
  request: ActionRequest,
  decision: Decision,
  at: number,
): number | undefined {
  if (decision.outcome !== 'ask') return nextLookAt(decision, at);
  const next = nextQuestionLook(policy, request, at);
  return next > at ? next : undefined;
}

/**
 * The look at a question, after its look at `at`, where the worker's answer can first differ, and
 * how many looks from `at` it is; or the last look before either limit (the replay's end `until`,
 * `looksLeft` looks), if it comes first. A question (an approval rule's `ask`) is answered the
 * same at every look while no freeze is in force and the request has not expired (the other
 * steps of decide.ts depend on the request, the recorded pause and veto, not on the time), so the
 * looks in between need not be decided again: a year's trail has hundreds of thousands of them.
 * The looks are the worker's (nextQuestionLook): hourly from `at`, the last just past the expiry.
 * Call it only where the next look is followed (`whyNotFollowed` said so): at least one look.
 */
export function nextChangingLook(
  policy: Policy,
  request: ActionRequest,
  at: number,
  limits: { until: number; looksLeft: number },
): { at: number; looks: number } {
  const expires = requestExpiresAt(policy, request).getTime();
  const lookAt = (n: number) => Math.min(at + n * ASK_RECHECK_MS, expires + 1000);
  // The first look past the expiry (denied there, if no freeze comes first).
  let first = Math.floor((expires - at) / ASK_RECHECK_MS) + 1;
  for (const freeze of policy.approvals.freezes) {
    const [start, end] = [Date.parse(freeze.start), Date.parse(freeze.end)];
    // The first look at or after the freeze's start; it sees the freeze if it comes before its end.
    const n = Math.max(1, Math.ceil((start - at) / ASK_RECHECK_MS));
    if (n < first && lookAt(n) < end) first = n;
  }
  const beforeEnd = Math.floor((limits.until - at) / ASK_RECHECK_MS);
  const looks = Math.max(1, Math.min(first, beforeEnd, limits.looksLeft));
  return { at: lookAt(looks), looks };
}

/**
 * Why a wait is not followed to its next look `next` (undefined: it is): a wait that does not
 * advance, one looked at too often, or one whose next look comes after the replay's end `until`
 * (a look that has not happened yet).
 */
export function whyNotFollowed(
  decision: Decision,
  next: number | undefined,
  looks: number,
  until: number,
): string | undefined {
  if (next === undefined)
    return `its ${decision.outcome === 'ask' ? 'next look' : 'deferUntil'} does not advance`;
  if (looks >= MAX_LOOKS) return `${MAX_LOOKS} looks`;
  return next > until ? 'the replay ends first' : undefined;
}

/**
 * A wait looked at past the request's expiry is denied, as the worker denies it. `decide` denies
 * most such looks itself; a pause comes before the expiry there (the worker holds a paused request
 * until `resume`, then denies it), and the replay knows no resume: it denies the first look past it.
 */
export function unlessExpired(
  policy: Policy,
  request: ActionRequest,
  decision: Decision,
  at: number,
): Decision {
  if (decision.outcome !== 'defer' || at <= requestExpiresAt(policy, request).getTime()) return decision;
  const when = (instant: number) => formatInstant(instant, policy.timezone, at);
  const { deferUntil: _, ...rest } = decision;
  return { ...rest, outcome: 'deny', rule: 'maxDeferHours', reason: expiryWords(policy, request, when) };
}

/** How a chain ended, as a change is told: `approve`, `deny (maxDeferHours)` (a denial names its rule). */
export function endLabel(end: FollowedEnd, label: string): string {
  if (end.notFollowed) return `${label} (not followed further)`;
  return end.outcome === 'deny' ? `${label} (${end.rule})` : label;
}

/** `2h`, `1h 5m`, `45m`, `30s`, `3d 2h`: a wait in words, to the minute. */
export function delayWords(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const minutes = Math.round(ms / 60_000);
  const [d, h, m] = [Math.floor(minutes / 1440), Math.floor(minutes / 60) % 24, minutes % 60];
  const parts = [d ? `${d}d` : '', h ? `${h}h` : '', m ? `${m}m` : ''].filter(Boolean);
  return parts.join(' ');
}

/** `after 2h`, or `after 10m – 2h` for several chains. */
export function delayRange(delays: Delays): string {
  const shortest = delayWords(delays.shortestMs);
  const longest = delayWords(delays.longestMs);
  return shortest === longest ? `after ${shortest}` : `after ${shortest} – ${longest}`;
}

/** Widens `delays` (by kind) with one chain's wait. */
export function addDelay(delays: Record<string, Delays>, kind: string, ms: number): void {
  const known = delays[kind];
  delays[kind] = known
    ? { shortestMs: Math.min(known.shortestMs, ms), longestMs: Math.max(known.longestMs, ms) }
    : { shortestMs: ms, longestMs: ms };
}

/** Looks waiting to be taken, earliest first (in the order they were added at the same instant). */
export class Looks<T> {
  private readonly waiting: { at: number; item: T }[] = [];

  add(at: number, item: T): void {
    // After every look at or before `at` (binary search: a replay holds thousands of open waits).
    let [low, high] = [0, this.waiting.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.waiting[middle]?.at ?? at) <= at) low = middle + 1;
      else high = middle;
    }
    this.waiting.splice(low, 0, { at, item });
  }

  /** The earliest look before `limit` (all of them without it), taken off the queue. */
  takeBefore(limit = Number.POSITIVE_INFINITY): { at: number; item: T } | undefined {
    const first = this.waiting[0];
    if (!first || first.at >= limit) return undefined;
    this.waiting.shift();
    return first;
  }
}
