/**
 * The chaos run's report (src/local/chaos.ts): its figures, the verdict read from them, and how
 * they are printed. Apart from the run, so that the verdict is unit-tested on plain reports.
 */
import type { ChaosCrashes } from './chaos-worker.js';
import { type TellLedger, tellFailures } from './tell-ledger.js';

export interface ChaosReport {
  sent: number;
  drained: boolean;
  durationMs: number;
  terminal: Record<string, number>;
  duplicatedEffects: Array<{ effectKey: string; successfulCalls: number }>;
  lost: string[];
  crashes: ChaosCrashes;
  invocations: number;
  recordsDelivered: number;
  faultsInjected: Record<string, number>;
  mutationCalls: number;
  effects: number;
  /** Effects the sandbox applied for which no request records a done outcome (should be 0). */
  effectsWithoutOutcome: string[];
  /**
   * Requests whose final says flatly done (no "may have been done") while the sandbox applied no
   * change under their effect key (should be 0): chaos-effects.ts `doneWithoutEffect`.
   */
  doneWithoutEffect: string[];
  /** How many requests' finals say flatly done: those the check above read. */
  doneChecked: number;
  /** What people were told: the tell ledger's checks (src/local/tell-ledger.ts). */
  telling: TellLedger;
  /** The trails of the requests told never (and of any named by CHAOS_TRACE): chaos-trace.ts. */
  trails?: string[];
}

/**
 * Why a chaos run failed; empty when it passed. Besides no duplicated and no lost request, the
 * run must have been a real test (faults injected, workers crashed) and every applied effect must
 * belong to a request recorded as done: one that was not is a change made while someone was
 * told otherwise; and the reverse, every request recorded flatly as done must have its change
 * applied by the sandbox: one that was not is a "done" told for a change never made. And what
 * people were told must hold (`tellFailures`).
 */
export function chaosFailures(report: ChaosReport): string[] {
  const failures: string[] = [];
  if (!report.drained) failures.push('the queue did not drain in time');
  if (report.duplicatedEffects.length > 0)
    failures.push(`${report.duplicatedEffects.length} duplicated effect(s)`);
  if (report.lost.length > 0) failures.push(`${report.lost.length} lost request(s)`);
  if (report.effectsWithoutOutcome.length > 0)
    failures.push(
      `${report.effectsWithoutOutcome.length} effect(s) applied without a request recorded as done`,
    );
  if (report.doneWithoutEffect.length > 0)
    failures.push(
      `${report.doneWithoutEffect.length} request(s) recorded as done whose change the sandbox never applied`,
    );
  if (Object.keys(report.faultsInjected).length === 0) failures.push('no fault was injected at the sandbox');
  if (report.crashes.midBatch + report.crashes.early + report.crashes.afterPut === 0)
    failures.push('no worker crash was injected');
  failures.push(...tellFailures(report.telling));
  return failures;
}

export function renderChaosReport(report: ChaosReport): string {
  const lines = [
    '',
    `chaos: ${report.sent} requests in ${(report.durationMs / 1000).toFixed(1)} s` +
      `${report.drained ? '' : ' — the queue did NOT drain in time'}`,
    `  faults injected at the sandbox: ${Object.entries(report.faultsInjected)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')} (of ${report.mutationCalls} mutation calls)`,
    `  worker crashes injected: ${report.crashes.midBatch} mid-batch, ${report.crashes.early} before starting, ` +
      `${report.crashes.afterPut} right after a put; ${report.crashes.timedOut} timed out ` +
      `(${report.invocations} invocations, ${report.recordsDelivered} records delivered)`,
    '',
    '  terminal state                 requests',
    '  ------------------------------ --------',
    ...Object.entries(report.terminal)
      .sort((a, b) => b[1] - a[1])
      .map(([state, n]) => `  ${state.padEnd(30)} ${String(n).padStart(8)}`),
    '',
    `  effects applied: ${report.effects}` +
      (report.effectsWithoutOutcome.length
        ? `; without a recorded "done": ${report.effectsWithoutOutcome.length} ${JSON.stringify(report.effectsWithoutOutcome.slice(0, 5))}`
        : '; each owned by a request recorded as done'),
    `  recorded as done (no "may have been"): ${report.doneChecked}; the change never applied by the sandbox: ` +
      `${report.doneWithoutEffect.length}${sample(report.doneWithoutEffect)}`,
    `  duplicated effects: ${report.duplicatedEffects.length}${report.duplicatedEffects.length ? ` ${JSON.stringify(report.duplicatedEffects.slice(0, 10))}` : ''}`,
    `  lost requests: ${report.lost.length}${report.lost.length ? ` ${JSON.stringify(report.lost.slice(0, 10))}` : ''}`,
    '',
    ...renderTelling(report.telling),
    '',
    ...(report.trails ?? []),
  ];
  // Ended by a newline: after a trail too, so that the verdict printed next starts its own line.
  const text = lines.join('\n');
  return text.endsWith('\n') ? text : `${text}\n`;
}

const sample = (items: unknown[]) => (items.length ? ` ${JSON.stringify(items.slice(0, 5))}` : '');

/** The tell ledger's figures: what people were told, against each request's final. */
export function renderTelling(t: TellLedger): string[] {
  const repeats = (to: 'requester' | 'channel') => t.repeats.filter((r) => r.to === to);
  const extra = (list: TellLedger['repeats']) => list.reduce((n, r) => n + r.count - 1, 0);
  const unexplained = t.repeats.filter((r) => !r.explained);
  return [
    `  told: ${t.posts.requester} posts to requesters, ${t.posts.channel} to the channel ` +
      `(${t.posts.ends} of an end, ${t.posts.notEnds} not; ${t.unattributed} about no request we could read, ` +
      `${t.unknown.length} with a headline we do not know${sample(t.unknown)})`,
    `  ended requests (a final in the table): ${t.ended} (${t.owed.requester} with a reply URL, ` +
      `${t.owed.channel} owed to the channel, ${t.owed.crashed} in a crashed invocation); never told to their requester: ` +
      `${t.untoldRequester.length}${sample(t.untoldRequester)}; never told to the channel: ` +
      `${t.untoldChannel.length}${sample(t.untoldChannel)}; untold with their message in the DLQ (told when an ` +
      `operator redrives it): ${t.untoldInDlq.length}${sample(t.untoldInDlq)}`,
    `  told two different ends: ${t.contradictions.length}${sample(t.contradictions)}`,
    `  told an end other than the final: ${t.mismatches.length}${sample(t.mismatches)}`,
    `  the same end told again: to the channel ${extra(repeats('channel'))} time(s) for ${repeats('channel').length} request(s), ` +
      `to requesters ${extra(repeats('requester'))} for ${repeats('requester').length}; ` +
      `with no crash or redelivery to explain it: ${unexplained.length}${sample(unexplained)}`,
  ];
}
