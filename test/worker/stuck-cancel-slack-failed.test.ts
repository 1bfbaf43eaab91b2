/**
 * SlackPostsFailed counts "replies, channel notices and questions not delivered"
 * (README "Operations"). When the release tick ends a stuck cancelled request itself, it tells
 * the requester and the channel, but a post that fails is neither counted nor logged.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { mayCancel } from '../../src/policy/cancel-grant.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readFinal } from '../../src/state/audit.js';
import { holdRequest, listHeld, nextLookText } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { type ReleaseDeps, releaseHeld } from '../../src/worker/release.js';
import { createWorkerEntry } from '../../src/worker/worker.js';
import { type Bench, basePolicy, startBench } from './fixture.js';

let bench: Bench;
let tick: ReleaseDeps;

beforeAll(async () => {
  bench = await startBench();
  tick = {
    table: bench.table,
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    logger: createLogger({ service: 'release', sink: () => {} }),
    signer: createRequesterSigner(async () => bench.requesterKeys),
  };
});
afterAll(async () => {
  bench?.slack.setStatus(200);
  await bench?.close();
});
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
});

describe('the release tick ending a stuck cancelled request', () => {
  it('counts SlackPostsFailed when the channel notice cannot be delivered', async () => {
    const since = '2026-11-23T10:00:00.000Z';
    const request = {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_stuck',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'x' },
      requestedAt: since,
      requestId: 'rv-ops-stuck-1',
    } as const;
    await holdRequest(
      bench.table,
      {
        requestId: 'rv-ops-stuck-1',
        action: 'approve_phase',
        target: 'trigger trg_stuck phase ph_1',
        requester: 'ci:x',
        why: 'window',
        rule: 'r',
        reason: 'r',
        since,
        nextLook: since,
        request,
      },
      bench.clock.now,
    );
    for (const hhmm of ['10:01', '10:16', '10:31'])
      await releaseHeld(tick, new Date(`2026-11-23T${hhmm}:00Z`));
    await bench.purge();
    const [stuck] = await listHeld(bench.table);
    expect(nextLookText(stuck!)).toContain('stuck');

    const policy = parsePolicy(basePolicy(bench.slack.origin));
    const at = new Date('2026-11-23T11:00:00Z');
    const cancelled = await heldAccess(bench.table).cancel(
      { requestId: 'rv-ops-stuck-1', by: 'slack:U0ADMIN', reason: 'clean up', now: at },
      (held) => mayCancel(policy, 'slack:U0ADMIN', held.request, at),
    );
    expect(cancelled).toMatchObject({ ok: true });

    const lines: string[] = [];
    const metrics = createMetrics({ service: 'worker', sink: (l) => lines.push(l), now: () => at.getTime() });
    const entry = createWorkerEntry({
      policy,
      client: {} as never,
      sqs: bench.queue.sqs,
      table: bench.table,
      queueUrl: bench.queue.queueUrl,
      dlqUrl: bench.emulators.dlqUrl,
      logger: createLogger({ service: 'worker', sink: () => {} }),
      metrics,
      clock: () => bench.clock.now.getTime(),
      slack: { allowedOrigins: [bench.slack.origin] },
      signer: createRequesterSigner(async () => bench.requesterKeys),
    } as never);
    // Slack is down: the channel notice of the cancel is not delivered.
    bench.slack.setStatus(500);
    const before = bench.slack.posts.length;
    try {
      await entry({ time: '2026-11-23T11:00:30Z' });
    } finally {
      bench.slack.setStatus(200);
    }
    expect((await readFinal(bench.table, 'rv-ops-stuck-1'))?.result).toBe('cancelled');
    expect(bench.slack.posts.slice(before).map((p) => p.path)).toContain('/services/channel');
    const failed = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => 'SlackPostsFailed' in l);
    expect(failed.length).toBeGreaterThanOrEqual(1);
  });
});
