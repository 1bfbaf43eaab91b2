/**
 * Replaying the audit trail under another policy: each recorded decision is decided again at
 * its original time with the state it had then (pause, veto), and the new policy's own counters
 * are rebuilt from the replayed approvals in time order. Pure: records in, rows and counts out.
 */
import type { ActionRequest } from '../actions/request.js';
import { actionTarget, requesterKey } from '../actions/request.js';
import { decide, type Outcome, type PauseInput, type Veto } from './decide.js';
import type { Policy } from './schema.js';

/** A recorded decision as the audit trail keeps it (structurally `StoredAuditRecord`). */
export interface RecordedDecision {
  requestId: string;
  at: string;
  action: string;
  target: string;
  requester: string;
  rule: string;
  result: string;
  inputs?: { request: Omit<ActionRequest, 'reply'>; now: string; pause: PauseInput; veto?: Veto };
}

export interface ReplayRow {
  requestId: string;
  at: string;
  action: string;
  target: string;
  requester: string;
  old: { outcome: Outcome; rule: string };
  new: { outcome: Outcome; rule: string; reason: string };
}

export interface ReplayReport {
  replayed: number;
  unchanged: number;
  /** Records without the inputs a replay needs (written before they were kept). */
  notReplayable: number;
  /** "approve → deny": how many. */
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

export function replayDecisions(policy: Policy, records: readonly RecordedDecision[]): ReplayReport {
  const report: ReplayReport = { replayed: 0, unchanged: 0, notReplayable: 0, changes: {}, rows: [] };
  const counted = new Map<string, number>();
  const ordered = [...records].sort((a, b) => a.at.localeCompare(b.at));
  for (const record of ordered) {
    const oldOutcome = outcomeOfResult(record.result);
    if (!oldOutcome) continue;
    if (!record.inputs) {
      report.notReplayable += 1;
      continue;
    }
    const { request, now, pause, veto } = record.inputs;
    let decision = decide(policy, { request: request as ActionRequest, now: new Date(now), pause, veto });
    const counter = decision.counter;
    if (counter && decision.outcome === 'approve') {
      const used = counted.get(counter.key) ?? 0;
      if (used + 1 > counter.limit) decision = counter.exceeded;
      else counted.set(counter.key, used + 1);
    }
    report.replayed += 1;
    const changed = decision.outcome !== oldOutcome || decision.rule !== record.rule;
    if (!changed) {
      report.unchanged += 1;
      continue;
    }
    const kind =
      decision.outcome === oldOutcome
        ? `${oldOutcome} → ${decision.outcome} (another rule)`
        : `${oldOutcome} → ${decision.outcome}`;
    report.changes[kind] = (report.changes[kind] ?? 0) + 1;
    report.rows.push({
      requestId: record.requestId,
      at: record.at,
      action: request.action,
      target: actionTarget(request as ActionRequest),
      requester: requesterKey(request.requestedBy),
      old: { outcome: oldOutcome, rule: record.rule },
      new: { outcome: decision.outcome, rule: decision.rule, reason: decision.reason },
    });
  }
  return report;
}
