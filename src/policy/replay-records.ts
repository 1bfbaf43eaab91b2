/**
 * The audit records `policy replay` reads, and what each one is: a decision it can take again
 * (with readable inputs), a person's answer or the release tick's end of a stuck wait (endings no
 * policy decided), and when it was decided. Split from replay.ts, which decides them again.
 */
import { type ActionRequest, actionRequestSchemas, actionTarget, requesterKey } from '../actions/request.js';
import { NO_CHANNEL_WORDS } from './ask-channel.js';
import type { Decision, Outcome, PauseInput, Veto } from './decide.js';
import type { FollowedEnd } from './replay-follow.js';
import type { Policy } from './schema.js';
import { wallDay, wallHour } from './windows.js';

/** What a decision was made from, kept in its audit record so that it can be decided again under another policy. */
export interface DecisionInputs {
  /** The request as decided (its Slack reply URL, a short-lived capability, left out). */
  request: Omit<ActionRequest, 'reply'>;
  /** The decision time (ISO). */
  now: string;
  pause: PauseInput;
  veto?: Veto;
  /** A stale sweep's archive: the config's newest exposure recorded when it was decided (epoch ms). */
  lastExposure?: number;
  /** With it: how far the sweeper had read the event log (epoch ms; null: never). */
  eventsReadUpTo?: number | null;
  /**
   * Whether a notifications channel was set to ask in: without one the worker denies an `ask`
   * (src/policy/ask-channel.ts). Records written before it was kept: see `channelOf`.
   */
  channel?: boolean;
}

/** A recorded decision as the audit trail keeps it (structurally `StoredAuditRecord`). */
export interface RecordedDecision {
  requestId: string;
  at: string;
  action: string;
  target: string;
  requester: string;
  rule: string;
  result: string;
  /** The recorded reason (tells a legacy denial for want of a channel, or a legacy answer). */
  reason?: string;
  /** Set on the record ending an asked request a person answered (an Approve click): who. */
  answeredBy?: string;
  /** Set on the record the release tick writes ending a stuck wait at its expiry (src/worker/stuck.ts). */
  stuckExpired?: boolean;
  /** Whether the decision was a dry run; records without it count `would-mutate` as one. */
  dryRun?: boolean;
  /** Set on an end whose call may have made the change though it was answered otherwise (src/state/audit.ts). */
  mayHaveBeenDone?: boolean;
  inputs?: DecisionInputs;
  /** The short digest of the policy that decided it (src/policy/digest.ts); absent on records older than it. */
  policyDigest?: string;
}

/** A record with inputs `decide` can take. */
export type ReplayableRecord = RecordedDecision & { inputs: DecisionInputs };

/**
 * Whether the record's decision had a channel to ask in. Records written before inputs kept it
 * say so only by their result: a denial for want of a channel had none; any other is taken to
 * have had one (the usual deployment), so a new `ask` there shows as `ask`.
 */
export function channelOf(record: RecordedDecision): boolean {
  if (typeof record.inputs?.channel === 'boolean') return record.inputs.channel;
  return !(record.result === 'denied' && record.reason?.includes(NO_CHANNEL_WORDS));
}

/** An ending no policy decided, counted apart: a person's answer, or the tick's end of a stuck wait. */
export function notADecision(record: RecordedDecision): 'answers' | 'stuckExpired' | undefined {
  if (isAnswer(record)) return 'answers';
  return isStuckExpiry(record) ? 'stuckExpired' : undefined;
}

/**
 * A person's answer ending an asked request (src/worker/answered.ts). Records written before
 * `answeredBy` was kept say it only in their reason, which the worker begins with these words;
 * a decision the policy made always has inputs.
 */
function isAnswer(record: RecordedDecision): boolean {
  if (record.answeredBy) return true;
  return !record.inputs && /^answered by \S+ \(request /.test(record.reason ?? '');
}

/**
 * The release tick's ending of a stuck wait at its expiry (src/worker/stuck.ts). Records written
 * before `stuckExpired` was kept say it only in their reason, which the tick ends with these words.
 */
function isStuckExpiry(record: RecordedDecision): boolean {
  if (record.stuckExpired) return true;
  return (
    !record.inputs &&
    record.rule === 'maxDeferHours' &&
    /; it was stuck: sent back \d+ times without coming back/.test(record.reason ?? '')
  );
}

/** The policy outcome a recorded result came from; undefined for records that are not decisions (DLQ, cancellations). */
export function outcomeOfResult(result: string): Outcome | undefined {
  if (['approved', 'groups-disabled', 'archived', 'would-mutate', 'stale', 'rejected'].includes(result))
    return 'approve';
  if (result === 'denied') return 'deny';
  if (result === 'deferred') return 'defer';
  if (result === 'asked') return 'ask';
  return undefined;
}

/** How many recorded decisions each policy made, against the one replayed. */
export interface PolicyTally {
  thisPolicy: number;
  otherPolicy: number;
  /** Records written before the deciding policy was kept (or a replay given no digest): never an error. */
  unknown: number;
}

/**
 * Counts a recorded decision (a person's answer and the tick's end of a stuck wait are none) by
 * the policy that made it: `replayed` is the replayed policy's short digest.
 */
export function tallyPolicy(
  tally: PolicyTally,
  record: RecordedDecision,
  replayed: string | undefined,
): void {
  if (notADecision(record)) return;
  if (!record.policyDigest || replayed === undefined) tally.unknown += 1;
  else if (record.policyDigest === replayed) tally.thisPolicy += 1;
  else tally.otherPolicy += 1;
}

/** When the worker decided the record (its inputs' `now`), else when the record was written. */
export function decidedAt(record: RecordedDecision): number {
  const now = Date.parse(record.inputs?.now ?? '');
  return Number.isNaN(now) ? Date.parse(record.at) || 0 : now;
}

/**
 * Inputs `decide` can take: a valid action request and a time. A damaged audit item (edited by
 * hand, cut short) is counted as not replayable rather than ending the whole replay in a TypeError.
 */
export function replayable(record: RecordedDecision): record is ReplayableRecord {
  const { inputs } = record;
  if (!inputs || typeof inputs !== 'object' || Number.isNaN(Date.parse(inputs.now))) return false;
  if (typeof inputs.pause?.paused !== 'boolean') return false;
  return actionRequestSchemas().actionRequest.safeParse(inputs.request).success;
}

/**
 * Whether the record is a call the platform refused without a change: `stale` or `rejected`, and
 * not one that may have been done by an earlier attempt (kept with the record, or, in records
 * written before that field, said by its reason).
 */
export function refusedCall(record: RecordedDecision): boolean {
  if (record.result !== 'stale' && record.result !== 'rejected') return false;
  if (typeof record.mayHaveBeenDone === 'boolean') return !record.mayHaveBeenDone;
  return !/may have (reached|been)|earlier attempt/.test(record.reason ?? '');
}

/**
 * Where `policy replay --since` starts reading the trail: the start of the policy's clock hour or
 * day containing `since`, whichever is earlier. The worker counted that hour's approvals
 * (maxPerHour) and that day's (maxPerDay) from their start, so the replay decides the records
 * before `since` in them too, for their counter units only (not reported), and decides as it did.
 */
export function countedFrom(policy: Policy, since: Date): Date {
  const at = since.getTime();
  const zone = policy.timezone;
  return new Date(Math.min(at, wallHour(at, zone).start, wallDay(at, zone).start));
}

export interface ReplayRow {
  requestId: string;
  at: string;
  action: string;
  target: string;
  requester: string;
  old: { outcome: Outcome; rule: string; dryRun: boolean };
  /** The new policy's answer at the recorded time. */
  new: { outcome: Outcome; rule: string; reason: string; dryRun: boolean };
  /** The short digest of the policy that made the recorded decision; absent on records older than it. */
  policyDigest?: string;
  /** Where `new` is a deferral or a question the replay followed (the old policy did not make it): how it ended. */
  followed?: FollowedEnd;
}

/** An outcome as a change is told: a dry-run approval changes nothing, so it differs from a real one. */
export function outcomeLabel(outcome: Outcome, dryRun: boolean): string {
  return outcome === 'approve' && dryRun ? 'approve (dry run)' : outcome;
}

/** The row of a replayed record: what it was, what the new policy answers. */
export function rowOf(record: ReplayableRecord, old: ReplayRow['old'], decision: Decision): ReplayRow {
  const request = record.inputs.request as ActionRequest;
  return {
    requestId: record.requestId,
    at: record.at,
    action: request.action,
    target: actionTarget(request),
    requester: requesterKey(request.requestedBy),
    ...(record.policyDigest ? { policyDigest: record.policyDigest } : {}),
    old,
    new: { outcome: decision.outcome, rule: decision.rule, reason: decision.reason, dryRun: decision.dryRun },
  };
}
