/**
 * Replaying the audit trail under another policy: each recorded decision is decided again at
 * its original time with the state it had then (pause, veto), and the new policy's own counters
 * are rebuilt from the replayed approvals in decision order (dry runs take no unit, as in the worker).
 * A request the new policy ends at one record is not decided again at its later records, a
 * dry-run approval is told apart from a real one, and an `ask` is denied where the record had no
 * channel to ask in or its request is too large for Slack's buttons, as the worker denied it.
 * Pure: records in, rows and counts out.
 */
import { type ActionRequest, actionRequestSchemas, actionTarget, requesterKey } from '../actions/request.js';
import { askedWhere, NO_CHANNEL_WORDS } from './ask-channel.js';
import { decide, type Outcome, type PauseInput, type Veto } from './decide.js';
import type { Policy } from './schema.js';

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
  inputs?: DecisionInputs;
}

export interface ReplayRow {
  requestId: string;
  at: string;
  action: string;
  target: string;
  requester: string;
  old: { outcome: Outcome; rule: string; dryRun: boolean };
  new: { outcome: Outcome; rule: string; reason: string; dryRun: boolean };
}

export interface ReplayReport {
  replayed: number;
  unchanged: number;
  /** Records without readable inputs (written before they were kept, or damaged): not decided again. */
  notReplayable: number;
  /** Later records of a request the new policy had already approved or denied at an earlier one: they would not exist. */
  alreadyEnded: number;
  /**
   * Records ending an asked request with a person's answer (an Approve click): not a policy
   * decision, so not decided again. The click's copy is a request of its own and is replayed.
   */
  answers: number;
  /**
   * Records of the release tick ending a stuck wait (its sends never came back) at its expiry:
   * housekeeping no worker decided, so not decided again. The request's own decisions are replayed.
   */
  stuckExpired: number;
  /** "approve → deny", "approve (dry run) → approve": how many. */
  changes: Record<string, number>;
  rows: ReplayRow[];
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

/** An outcome as a change is told: a dry-run approval changes nothing, so it differs from a real one. */
export function outcomeLabel(outcome: Outcome, dryRun: boolean): string {
  return outcome === 'approve' && dryRun ? 'approve (dry run)' : outcome;
}

export function replayDecisions(policy: Policy, records: readonly RecordedDecision[]): ReplayReport {
  const report: ReplayReport = {
    replayed: 0,
    unchanged: 0,
    notReplayable: 0,
    alreadyEnded: 0,
    answers: 0,
    stuckExpired: 0,
    changes: {},
    rows: [],
  };
  const counted = new Map<string, number>();
  // A deferred request leaves one record per decision; once the new policy ends it (approve or
  // deny), its later records would never have been made, and must not take a counter unit again.
  const ended = new Set<string>();
  // In the order the worker took counter units: by decision time. The record's own `at` is when the
  // request finished (after its Console API call), so a slow approval is written after a quick
  // one decided later; records without readable inputs fall back to it.
  const ordered = [...records].sort((a, b) => decidedAt(a) - decidedAt(b) || a.at.localeCompare(b.at));
  for (const record of ordered) {
    const oldOutcome = outcomeOfResult(record.result);
    if (!oldOutcome) continue;
    if (ended.has(record.requestId)) {
      report.alreadyEnded += 1;
      continue;
    }
    const apart = notADecision(record);
    if (apart) {
      report[apart] += 1;
      continue;
    }
    if (!replayable(record.inputs)) {
      report.notReplayable += 1;
      continue;
    }
    const { request, now, pause, veto, lastExposure, eventsReadUpTo } = record.inputs;
    let decision = decide(policy, {
      request: request as ActionRequest,
      now: new Date(now),
      pause,
      veto,
      lastExposure,
      eventsReadUpTo,
    });
    const counter = decision.counter;
    // A dry run mutates nothing, and the worker takes no counter unit for it: neither does the replay.
    if (counter && decision.outcome === 'approve' && !decision.dryRun) {
      const used = counted.get(counter.key) ?? 0;
      if (used + 1 > counter.limit) decision = counter.exceeded;
      else counted.set(counter.key, used + 1);
    }
    // An ask with no channel to ask in, or too large to ask, is denied, as the worker carries it out.
    decision = askedWhere(decision, channelOf(record), request);
    if (decision.outcome === 'approve' || decision.outcome === 'deny') ended.add(record.requestId);
    report.replayed += 1;
    const oldDryRun = record.dryRun ?? record.result === 'would-mutate';
    const was = outcomeLabel(oldOutcome, oldDryRun);
    const label = outcomeLabel(decision.outcome, decision.dryRun);
    if (was === label && decision.rule === record.rule) {
      report.unchanged += 1;
      continue;
    }
    const kind = was === label ? `${was} → ${label} (another rule)` : `${was} → ${label}`;
    report.changes[kind] = (report.changes[kind] ?? 0) + 1;
    report.rows.push({
      requestId: record.requestId,
      at: record.at,
      action: request.action,
      target: actionTarget(request as ActionRequest),
      requester: requesterKey(request.requestedBy),
      old: { outcome: oldOutcome, rule: record.rule, dryRun: oldDryRun },
      new: {
        outcome: decision.outcome,
        rule: decision.rule,
        reason: decision.reason,
        dryRun: decision.dryRun,
      },
    });
  }
  return report;
}

/**
 * Whether the record's decision had a channel to ask in. Records written before inputs kept it
 * say so only by their result: a denial for want of a channel had none; any other is taken to
 * have had one (the usual deployment), so a new `ask` there shows as `ask`.
 */
function channelOf(record: RecordedDecision): boolean {
  if (typeof record.inputs?.channel === 'boolean') return record.inputs.channel;
  return !(record.result === 'denied' && record.reason?.includes(NO_CHANNEL_WORDS));
}

/** An ending no policy decided, counted apart: a person's answer, or the tick's end of a stuck wait. */
function notADecision(record: RecordedDecision): 'answers' | 'stuckExpired' | undefined {
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

/** When the worker decided the record (its inputs' `now`), else when the record was written. */
function decidedAt(record: RecordedDecision): number {
  const now = Date.parse(record.inputs?.now ?? '');
  return Number.isNaN(now) ? Date.parse(record.at) || 0 : now;
}

/**
 * Inputs `decide` can take: a valid action request and a time. A damaged audit item (edited by
 * hand, cut short) is counted as not replayable rather than ending the whole replay in a TypeError.
 */
function replayable(inputs: RecordedDecision['inputs']): inputs is NonNullable<RecordedDecision['inputs']> {
  if (!inputs || typeof inputs !== 'object' || Number.isNaN(Date.parse(inputs.now))) return false;
  if (typeof inputs.pause?.paused !== 'boolean') return false;
  return actionRequestSchemas().actionRequest.safeParse(inputs.request).success;
}
