/**
 * Replaying the audit trail under another policy: each recorded decision is decided again at
 * its original time with the state it had then (pause, veto), and the new policy's own counters
 * are rebuilt from the replayed approvals in time order (dry runs take no unit, as in the worker).
 * A request the new policy ends at one record is not decided again at its later records, a
 * dry-run approval is told apart from a real one, and an `ask` is denied where the record had no
 * channel to ask in or its request is too large for Slack's buttons, as the worker denied it.
 * A deferral or a question the new policy makes where the old one did not is followed to its end,
 * as the worker would hold it and decide it again at `deferUntil` or at its hourly look at the
 * question (replay-follow.ts), up to the replay's end; the old trail's later records of that
 * request (an asked request's hourly looks, say) are not decided again: each is one change.
 * Records before `since` (from the start of its hour or day: countedFrom) are decided for their
 * counter units only, as the worker counted them, and not reported. Pure: records in, rows and counts out.
 */
import { type ActionRequest, effectKey } from '../actions/request.js';
import { askedWhere } from './ask-channel.js';
import { type Decision, decide, type Outcome } from './decide.js';
import {
  addDelay,
  type Delays,
  endLabel,
  type FollowedEnd,
  Looks,
  MAX_LOOKS,
  nextChangingLook,
  nextLookOf,
  unlessExpired,
  whyNotFollowed,
} from './replay-follow.js';
import {
  channelOf,
  decidedAt,
  notADecision,
  outcomeLabel,
  outcomeOfResult,
  type PolicyTally,
  type RecordedDecision,
  type ReplayableRecord,
  type ReplayRow,
  refusedCall,
  replayable,
  rowOf,
  tallyPolicy,
} from './replay-records.js';
import type { Policy } from './schema.js';

export type { DecisionInputs, PolicyTally, RecordedDecision, ReplayRow } from './replay-records.js';
export { outcomeLabel, outcomeOfResult };

export interface ReplayReport {
  replayed: number;
  unchanged: number;
  /** Records without readable inputs (written before they were kept, or damaged): not decided again. */
  notReplayable: number;
  /** Later records of a request the new policy had already approved or denied at an earlier one: they would not exist. */
  alreadyEnded: number;
  /**
   * Records of a request whose change the new policy had already made for another request (a CI
   * retry under a new id): the worker tells such a request "already done" without deciding it.
   */
  alreadyDone: number;
  /**
   * Later records of a request the new policy deferred (followed from there) or asked about at an
   * earlier one where the old policy had not: the old worker's looks at it, not new decisions.
   */
  laterLooks: number;
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
  /** Records before `since` in its hour or day, decided only for the units they take of its limits: not reported. */
  countedBefore: number;
  /**
   * "approve → deny", "approve (dry run) → approve", and for a followed deferral its end:
   * "approve → defer → approve", "approve → defer → deny (maxDeferHours)": how many.
   */
  changes: Record<string, number>;
  /** For each kind of change ending a followed wait: its shortest and longest wait. */
  delays: Record<string, Delays>;
  /** The recorded decisions by the policy that made them: the one replayed, another, or unknown (older records). */
  decidedUnder: PolicyTally;
  rows: ReplayRow[];
}

/** A followed wait (deferral or question): the request the new policy holds, waiting for its next look. */
interface Chain {
  record: ReplayableRecord;
  /** Absent for a chain from a record before `since`: followed for its counter units, not reported. */
  row?: ReplayRow;
  /** The change so far: `approve → defer`. */
  kind: string;
  /** When the recorded decision was made (epoch ms). */
  from: number;
  looks: number;
}

/** `until`: the replay's end (the CLI's now): a wait is not followed to looks after it, which have not happened. */
export function replayDecisions(
  policy: Policy,
  records: readonly RecordedDecision[],
  /** `policyDigest`: the replayed policy's short digest (src/policy/digest.ts), for `decidedUnder`. */
  /** `since`: the first record reported; those before it are only counted (see countedFrom). */
  options: { until?: Date; policyDigest?: string; since?: Date } = {},
): ReplayReport {
  const until = options.until?.getTime() ?? Number.POSITIVE_INFINITY;
  const since = options.since?.getTime() ?? Number.NEGATIVE_INFINITY;
  const report: ReplayReport = {
    replayed: 0,
    unchanged: 0,
    notReplayable: 0,
    alreadyEnded: 0,
    alreadyDone: 0,
    laterLooks: 0,
    answers: 0,
    stuckExpired: 0,
    countedBefore: 0,
    changes: {},
    delays: {},
    decidedUnder: { thisPolicy: 0, otherPolicy: 0, unknown: 0 },
    rows: [],
  };
  const count = (kind: string) => {
    report.changes[kind] = (report.changes[kind] ?? 0) + 1;
  };
  const counted = new Map<string, number>();
  // A deferred request leaves one record per decision; once the new policy ends it (approve or
  // deny), its later records would never have been made, and must not take a counter unit again.
  const ended = new Set<string>();
  // The changes the new policy made (effect key → the request that made it): the worker replays a
  // completed effect to any other request for it before the policy is asked, taking no counter unit.
  const madeBy = new Map<string, string>();
  const doneByAnother = (record: ReplayableRecord) => {
    const by = madeBy.get(effectKey(record.inputs.request as ActionRequest));
    return by !== undefined && by !== record.requestId;
  };
  // In the order the worker took counter units: by decision time. The record's own `at` is when the
  // request finished (after its Console API call), so a slow approval is written after a quick
  // one decided later; records without readable inputs fall back to it.
  const ordered = [...records].sort((a, b) => decidedAt(a) - decidedAt(b) || a.at.localeCompare(b.at));
  // Requests the new policy deferred or asked about where the old one did not: decided once, there.
  // The old trail's later records are the old worker's looks (hourly at a question, at its own
  // deferUntil), not the new worker's: the new wait is followed instead.
  const decidedOnce = new Set<string>();
  // Followed waits' next looks, taken in time order with the records: a later approval takes its unit then.
  const looks = new Looks<Chain>();

  /** The new policy's answer at `now` from the record's inputs, carried out as the worker would. */
  const decideAt = (record: ReplayableRecord, now: number): Decision => {
    const { request, pause, veto, lastExposure, eventsReadUpTo } = record.inputs;
    let decision = decide(policy, {
      request: request as ActionRequest,
      now: new Date(now),
      pause,
      veto,
      lastExposure,
      eventsReadUpTo,
    });
    const counter = decision.counter;
    // The platform refused the recorded call (stale, rejected) and changed nothing: the worker
    // gives that unit back (src/worker/process-record.ts), and so does the replay at that decision.
    const refused = now === decidedAt(record) && refusedCall(record);
    // A dry run mutates nothing, and the worker takes no counter unit for it: neither does the
    // replay. Nor for a followed wait whose change another request made meanwhile (told as done).
    const changes = decision.outcome === 'approve' && !decision.dryRun && !doneByAnother(record);
    if (counter && changes) {
      const used = counted.get(counter.key) ?? 0;
      if (used + 1 > counter.limit) decision = counter.exceeded;
      else if (!refused) counted.set(counter.key, used + 1);
    }
    if (changes && decision.outcome === 'approve' && !refused)
      madeBy.set(effectKey(request as ActionRequest), record.requestId);
    // An ask with no channel to ask in, or too large to ask, is denied, as the worker carries it out.
    return askedWhere(decision, channelOf(record), request);
  };

  /**
   * Decides a held request again at `at` (`decided`: the answer already made there, at its recorded
   * decision) and waits for the next look while it defers or asks (the worker looks at an unanswered
   * question every hour, and its answer may change: a freeze, the expiry); otherwise tells how the
   * chain ended. A person's answer is not known: the chain is the worker's without one.
   */
  const follow = (chain: Chain, at: number, decided = decideAt(chain.record, at)) => {
    const request = chain.record.inputs.request as ActionRequest;
    const decision = unlessExpired(policy, request, decided, at);
    const waits = decision.outcome === 'defer' || decision.outcome === 'ask';
    const next = waits ? nextLookOf(policy, request, decision, at) : undefined;
    const stopped = waits ? whyNotFollowed(decision, next, chain.looks, until) : undefined;
    if (waits && next !== undefined && stopped === undefined) {
      // A question's answer stays the same until a freeze or the expiry: the looks before are passed over.
      const look =
        decision.outcome === 'ask'
          ? nextChangingLook(policy, request, at, { until, looksLeft: MAX_LOOKS - chain.looks })
          : { at: next, looks: 1 };
      chain.looks += look.looks;
      looks.add(look.at, chain);
      return;
    }
    if (decision.outcome === 'approve' || decision.outcome === 'deny') ended.add(chain.record.requestId);
    const { row } = chain;
    if (!row) return;
    const end: FollowedEnd = {
      outcome: decision.outcome,
      rule: decision.rule,
      reason: decision.reason,
      dryRun: decision.dryRun,
      at: new Date(at).toISOString(),
      afterMs: at - chain.from,
      looks: chain.looks,
      ...(stopped === undefined ? {} : { notFollowed: stopped }),
    };
    row.followed = end;
    const kind = `${chain.kind} → ${endLabel(end, outcomeLabel(decision.outcome, decision.dryRun))}`;
    count(kind);
    addDelay(report.delays, kind, end.afterMs);
  };
  /** Why a record is not decided again (the count it adds to), apart from unreadable inputs. */
  const notDecidedAgain = (record: RecordedDecision) => {
    if (ended.has(record.requestId)) return 'alreadyEnded';
    const apart = notADecision(record);
    if (apart) return apart;
    if (replayable(record) && doneByAnother(record)) return 'alreadyDone';
    return decidedOnce.has(record.requestId) ? 'laterLooks' : undefined;
  };
  const takeLooksBefore = (limit?: number) => {
    for (let look = looks.takeBefore(limit); look; look = looks.takeBefore(limit)) follow(look.item, look.at);
  };

  /** The new policy's answer at the record's decision, noted as ending or holding its request. */
  const decideRecord = (record: ReplayableRecord, oldOutcome: Outcome) => {
    const decision = decideAt(record, decidedAt(record));
    if (decision.outcome === 'approve' || decision.outcome === 'deny') ended.add(record.requestId);
    const newWait =
      (decision.outcome === 'defer' || decision.outcome === 'ask') && decision.outcome !== oldOutcome;
    if (newWait) decidedOnce.add(record.requestId);
    return { decision, newWait };
  };
  /** A record written (so decided) before `since`: decided for its counter units, as the worker counted them; not reported. */
  const countBefore = (record: RecordedDecision, oldOutcome: Outcome) => {
    if (notDecidedAgain(record) || !replayable(record)) return;
    const { decision, newWait } = decideRecord(record, oldOutcome);
    report.countedBefore += 1;
    const from = decidedAt(record);
    if (newWait) follow({ record, kind: '', from, looks: 0 }, from, decision);
  };

  for (const record of ordered) {
    takeLooksBefore(decidedAt(record));
    const oldOutcome = outcomeOfResult(record.result);
    if (!oldOutcome) continue;
    if (Date.parse(record.at) < since) {
      countBefore(record, oldOutcome);
      continue;
    }
    tallyPolicy(report.decidedUnder, record, options.policyDigest);
    const skipped = notDecidedAgain(record);
    if (skipped) {
      report[skipped] += 1;
      continue;
    }
    if (!replayable(record)) {
      report.notReplayable += 1;
      continue;
    }
    const { decision, newWait } = decideRecord(record, oldOutcome);
    report.replayed += 1;
    const oldDryRun = record.dryRun ?? record.result === 'would-mutate';
    const was = outcomeLabel(oldOutcome, oldDryRun);
    const label = outcomeLabel(decision.outcome, decision.dryRun);
    if (was === label && decision.rule === record.rule) {
      report.unchanged += 1;
      continue;
    }
    const kind = was === label ? `${was} → ${label} (another rule)` : `${was} → ${label}`;
    const row = rowOf(record, { outcome: oldOutcome, rule: record.rule, dryRun: oldDryRun }, decision);
    report.rows.push(row);
    // A deferral or a question where the old policy made none: its looks are not in the trail, so
    // they are followed. (Where the old policy deferred or asked too, its later records are those looks.)
    if (newWait) {
      follow({ record, row, kind, from: decidedAt(record), looks: 0 }, decidedAt(record), decision);
    } else count(kind);
  }
  takeLooksBefore();
  return report;
}
