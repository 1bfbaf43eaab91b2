/**
 * The release tick ends a stuck wait itself (past its maxDeferHours: denied; cancelled: cancelled),
 * as the worker would have. The worker's own end of the same request puts a `Decisions` metric
 * and logs `result` and `rule`; the tick's put nothing and logged neither. The dashboard's
 * "Decisions" graph never counted these denials and cancels, and the saved query "denials by rule"
 * (`filter result = "denied" | stats count(*) by rule`) never found them. The deployed tick (the
 * worker function's entry) on the emulators.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { holdRequest } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { createWorkerEntry } from '../../src/worker/worker.js';
import { type Bench, basePolicy, startBench } from './fixture.js';
import { releaseDeps } from './questions.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
});

/** A CI request held for a window at 10:00 on the 23rd, whose three sends never came back. */
async function stuck(requestId: string): Promise<void> {
  const since = '2026-11-23T10:00:00.000Z';
  const request = {
    version: 1,
    action: 'approve_phase',
    triggerId: `trg_${requestId}`,
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy' },
    requestedAt: since,
    requestId,
  } as const;
  await holdRequest(
    bench.table,
    {
      requestId,
      action: 'approve_phase',
      target: `trigger trg_${requestId} phase ph_1`,
      requester: 'ci:deploy',
      why: 'window',
      rule: 'CI in office hours',
      reason: 'outside the window',
      since,
      nextLook: since,
      request,
    },
    bench.clock.now,
  );
  const tick = releaseDeps(bench);
  for (const hhmm of ['10:01', '10:16', '10:31']) await releaseHeld(tick, new Date(`2026-11-23T${hhmm}:00Z`));
  await bench.purge();
}

it('counts the denial of a stuck wait past its expiry in Decisions, and logs its result and rule', async () => {
  await stuck('sc-expired');
  const metricLines: string[] = [];
  const logLines: string[] = [];
  const entry = createWorkerEntry({
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    client: {} as never,
    sqs: bench.queue.sqs,
    table: bench.table,
    queueUrl: bench.queue.queueUrl,
    dlqUrl: bench.emulators.dlqUrl,
    logger: createLogger({ service: 'worker', sink: (l) => logLines.push(l) }),
    metrics: createMetrics({
      service: 'worker',
      sink: (l) => metricLines.push(l),
      now: () => Date.parse('2026-11-26T10:00:30Z'),
    }),
    clock: () => bench.clock.now.getTime(),
    slack: { allowedOrigins: [bench.slack.origin] },
    signer: createRequesterSigner(async () => bench.requesterKeys),
  } as never);

  await entry({ time: '2026-11-26T10:00:30Z' });

  const decisions = metricLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => 'Decisions' in l && l.requestId === 'sc-expired');
  expect(decisions.map((l) => [l.Action, l.Outcome])).toEqual([['approve_phase', 'denied']]);

  // What the saved query "denials by rule" reads: result = "denied", by rule.
  const denials = logLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.result === 'denied' && l.requestId === 'sc-expired');
  expect(denials.map((l) => l.rule)).toEqual(['maxDeferHours']);
});
