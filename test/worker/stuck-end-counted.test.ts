/**
 * The release tick ends a stuck wait itself (past its maxDeferHours: denied; cancelled: cancelled),
 * as the worker would have. The worker's own end of the same request puts a `Decisions` metric
 * and logs `result` and `rule`; the tick's put nothing and logged neither. The dashboard's
 * "Decisions" graph never counted these denials and cancels, and the saved query "denials by rule"
 * (`filter result = "denied" | stats count(*) by rule`) never found them. The deployed tick (the
 * worker function's entry) on the emulators.
 */
import { expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { createWorkerEntry } from '../../src/worker/worker.js';
import { basePolicy, benchResetEachTest } from './fixture.js';
import { holdStuck, tickDeps } from './stuck.js';

const bench = benchResetEachTest();

it('counts the denial of a stuck wait past its expiry in Decisions, and logs its result and rule', async () => {
  await holdStuck(bench, 'sc-expired');
  const metricLines: string[] = [];
  const logLines: string[] = [];
  const entry = createWorkerEntry({
    ...tickDeps(bench, parsePolicy(basePolicy(bench.slack.origin))),
    logger: createLogger({ service: 'worker', sink: (l) => logLines.push(l) }),
    metrics: createMetrics({
      service: 'worker',
      sink: (l) => metricLines.push(l),
      now: () => Date.parse('2026-11-26T10:00:30Z'),
    }),
  });

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
