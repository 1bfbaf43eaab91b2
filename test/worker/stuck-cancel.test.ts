/**
 * `/autopilot cancel` of a held request the tick lists as *stuck*. The webhook answers
 * "cancelled … told within a minute"; the worker is the one
 * that ends it (the webhook may not), and no copy of a stuck wait comes back to the worker: the
 * release tick ends it itself, tells the channel (also one named by the policy file) and counts a
 * notice it could not deliver.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics, type Metrics } from '../../src/observability/metrics.js';
import { mayCancel } from '../../src/policy/cancel-grant.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { Policy } from '../../src/policy/schema.js';
import { readFinal } from '../../src/state/audit.js';
import { holdRequest, listHeld, nextLookText } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { type ReleaseDeps, releaseHeld } from '../../src/worker/release.js';
import { createWorkerEntry } from '../../src/worker/worker.js';
import { type Bench, basePolicy, startBench } from './fixture.js';
import { releaseDeps } from './questions.js';

let bench: Bench;
let tick: ReleaseDeps;

beforeAll(async () => {
  bench = await startBench();
  tick = releaseDeps(bench);
});
afterAll(async () => {
  await bench?.close();
});
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
});

/** A request held for a window whose three sends never came back, then cancelled from Slack. */
async function stuckAndCancelled(requestId: string): Promise<Policy> {
  const since = '2026-11-23T10:00:00.000Z';
  const request = {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_stuck',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'x' },
    requestedAt: since,
    requestId,
  } as const;
  const wait = {
    action: 'approve_phase',
    target: 'trigger trg_stuck phase ph_1',
    requester: 'ci:x',
  } as const;
  const held = {
    requestId,
    ...wait,
    why: 'window',
    rule: 'r',
    reason: 'r',
    since,
    nextLook: since,
    request,
  } as const;
  await holdRequest(bench.table, held, bench.clock.now);
  // Three sends that never came back (each dead-lettered, say): the wait is stuck.
  for (const hhmm of ['10:01', '10:16', '10:31']) await releaseHeld(tick, new Date(`2026-11-23T${hhmm}:00Z`));
  await bench.purge();
  const stuck = (await listHeld(bench.table)).find((h) => h.requestId === requestId);
  expect(nextLookText(stuck!)).toContain('stuck');
  // An operator cancels it from Slack, as the webhook does it; the reply promises an ending.
  const policy = parsePolicy(basePolicy(bench.slack.origin));
  const at = new Date('2026-11-23T11:00:00Z');
  const cancelled = await heldAccess(bench.table).cancel(
    { requestId, by: 'slack:U0ADMIN', reason: 'clean up', now: at },
    (item) => mayCancel(policy, 'slack:U0ADMIN', item.request, at),
  );
  expect(cancelled).toMatchObject({ ok: true });
  return policy;
}

/** The deployed tick: the worker function's entry, with the worker's deps. */
function workerEntry(policy: Policy, metrics?: Metrics) {
  return createWorkerEntry({
    policy,
    client: {} as never,
    sqs: bench.queue.sqs,
    table: bench.table,
    queueUrl: bench.queue.queueUrl,
    dlqUrl: bench.emulators.dlqUrl,
    logger: createLogger({ service: 'worker', sink: () => {} }),
    ...(metrics ? { metrics } : {}),
    clock: () => bench.clock.now.getTime(),
    slack: { allowedOrigins: [bench.slack.origin] },
    signer: createRequesterSigner(async () => bench.requesterKeys),
  } as never);
}

describe('cancelling a stuck held request', () => {
  it('ends it as cancelled within a minute, as the cancel reply promises', async () => {
    await stuckAndCancelled('rv-stuck-1');
    const tock = await releaseHeld(tick, new Date('2026-11-23T11:00:30Z'));
    const final = await readFinal(bench.table, 'rv-stuck-1');
    const left = (await listHeld(bench.table)).filter((h) => h.requestId === 'rv-stuck-1');
    expect({ released: tock.released, ended: tock.ended, final: final?.result, held: left.length }).toEqual({
      released: [],
      ended: ['rv-stuck-1'],
      final: 'cancelled',
      held: 0,
    });
    expect(final?.reason).toContain('cancelled by slack:U0ADMIN');
    // Nothing was sent back for it: the queue stays empty.
    expect((await bench.receive()).Records).toEqual([]);
  });

  it('tells the channel (policy notifications.slackWebhookUrl, still supported), as the cancel reply promises', async () => {
    const policy = await stuckAndCancelled('rv-stuck-2');
    const before = bench.slack.posts.length;
    await workerEntry(policy)({ time: '2026-11-23T11:00:30Z' });
    expect((await readFinal(bench.table, 'rv-stuck-2'))?.result).toBe('cancelled');
    // The worker tells the channel of a cancel through the policy's URL when the secret has none
    // (notificationsUrl); the tick's ending must too.
    expect(bench.slack.posts.slice(before).map((p) => p.path)).toContain('/services/channel');
  });

  it('counts SlackPostsFailed when the channel notice cannot be delivered', async () => {
    const policy = await stuckAndCancelled('rv-stuck-3');
    const lines: string[] = [];
    const at = Date.parse('2026-11-23T11:00:00Z');
    const metrics = createMetrics({ service: 'worker', sink: (l) => lines.push(l), now: () => at });
    // Slack is down: the channel notice of the cancel is not delivered.
    bench.slack.setStatus(500);
    const before = bench.slack.posts.length;
    try {
      await workerEntry(policy, metrics)({ time: '2026-11-23T11:00:30Z' });
    } finally {
      bench.slack.setStatus(200);
    }
    expect((await readFinal(bench.table, 'rv-stuck-3'))?.result).toBe('cancelled');
    expect(bench.slack.posts.slice(before).map((p) => p.path)).toContain('/services/channel');
    const failed = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => 'SlackPostsFailed' in l);
    expect(failed.length).toBeGreaterThanOrEqual(1);
  });
});
