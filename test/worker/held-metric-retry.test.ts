/**
 * HeldRequests ("requests that wait") is put before the question is posted. When the
 * post to the channel fails, the record is retried (RetryLater) and every retry of the same
 * request counts one more held request, so a Slack outage inflates the metric per retry.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();
afterAll(async () => {
  bench.slack.setStatus(200);
});

describe('HeldRequests for a question whose post to the channel fails, then succeeds', () => {
  it('counts the one held request once, not once per retry', async () => {
    const lines: string[] = [];
    const metrics = createMetrics({
      service: 'worker',
      sink: (l) => lines.push(l),
      now: () => bench.clock.now.getTime(),
    });
    const worker = bench.worker({ metrics });
    await bench.send({
      action: 'approve_phase',
      triggerId: 'trg_ask',
      phaseId: 'ph_1',
      requestedBy: { source: 'schedule', id: 'stale-sweep' },
      requestId: 'rv-ops-ask-1',
    });
    const event = await bench.receive(1);
    expect(event.Records).toHaveLength(1);

    bench.slack.setStatus(500);
    const first = await bench.run(worker, event);
    const second = await bench.run(worker, event);
    bench.slack.setStatus(200);
    expect(first.batchItemFailures).toHaveLength(1);
    expect(second.batchItemFailures).toHaveLength(1);
    const third = await bench.run(worker, event);
    expect(third.batchItemFailures).toHaveLength(0);

    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const asked = parsed.filter((l) => 'Decisions' in l && l.Outcome === 'asked');
    expect(asked).toHaveLength(1);
    expect(parsed.filter((l) => 'SlackPostsFailed' in l)).toHaveLength(2);
    const held = parsed.filter((l) => 'HeldRequests' in l);
    expect(held.map((l) => l.Why)).toEqual(['ask']);
  });
});
