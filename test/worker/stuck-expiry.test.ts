/**
 * A held request the release tick lists as *stuck* (its sends never came back: each copy
 * dead-lettered, say) is never sent back again, so no worker ever decided it again: it never
 * reached its maxDeferHours expiry, nobody was told, and it sat in `held` until the record's own
 * 30-day clean-up, while a CI gate on its id waited. The tick now ends a stuck wait past its
 * expiry itself, as the worker would (denied, rule maxDeferHours), and tells the requester and the
 * channel. The deployed tick (the worker function's entry) on the emulators.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { outcomeNow } from '../../src/cli/wait.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { holdRequest, listHeld, markReached, nextLookText } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
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
  const held = (await listHeld(bench.table)).find((h) => h.requestId === requestId);
  expect(nextLookText(held!)).toContain('stuck');
}

/** The deployed tick: the worker function's entry with the worker's deps (the policy: maxDeferHours 72). */
function tick(time: string) {
  const entry = createWorkerEntry({
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    client: {} as never,
    sqs: bench.queue.sqs,
    table: bench.table,
    queueUrl: bench.queue.queueUrl,
    dlqUrl: bench.emulators.dlqUrl,
    logger: createLogger({ service: 'worker', sink: () => {} }),
    clock: () => bench.clock.now.getTime(),
    slack: { allowedOrigins: [bench.slack.origin] },
    signer: createRequesterSigner(async () => bench.requesterKeys),
  } as never);
  return entry({ time });
}

/** What the channel was told about `requestId` since post number `from`. */
const channelPosts = (from: number, requestId: string) =>
  bench.slack.posts
    .slice(from)
    .filter((p) => p.path === '/services/channel')
    .map((p) => JSON.stringify(p.body))
    .filter((body) => body.includes(requestId));

describe('a stuck held request', () => {
  it('is left alone before its expiry', async () => {
    await stuck('se-early');
    await tick('2026-11-26T09:59:00Z');
    expect((await listHeld(bench.table)).map((h) => h.requestId)).toContain('se-early');
    expect((await outcomeNow(bench.table, 'se-early')).exitCode).toBeUndefined();
  });

  it('is ended as expired once maxDeferHours has passed, and the channel is told', async () => {
    await stuck('se-expired');
    const before = bench.slack.posts.length;
    await tick('2026-11-26T10:00:30Z');
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('se-expired');
    const gate = await outcomeNow(bench.table, 'se-expired');
    expect(gate).toMatchObject({ exitCode: 3, result: 'denied', rule: 'maxDeferHours' });
    expect(gate.reason).toContain('more than 72 hours ago');
    const told = channelPosts(before, 'se-expired');
    expect(told).toHaveLength(1);
    expect(told[0]).toContain('Denied');
    expect(told[0]).toContain('se-expired');
    // Nothing was sent back for it.
    expect((await bench.receive()).Records).toEqual([]);
  });

  it('waits for resume while automation is paused, as the worker holds an expired request then', async () => {
    await stuck('se-paused');
    const at = new Date('2026-11-26T09:00:00Z');
    await writePause(bench.table, { paused: true, by: 'slack:U0ADMIN', at });
    try {
      await tick('2026-11-26T10:00:30Z');
      expect((await listHeld(bench.table)).map((h) => h.requestId)).toContain('se-paused');
    } finally {
      await writePause(bench.table, { paused: false, by: 'slack:U0ADMIN', at });
    }
    await tick('2026-11-26T10:01:30Z');
    expect(await outcomeNow(bench.table, 'se-paused')).toMatchObject({
      result: 'denied',
      rule: 'maxDeferHours',
    });
  });

  it('says the change may have been made when an attempt for it may have reached the platform', async () => {
    await stuck('se-reached');
    await markReached(bench.table, 'se-reached', new Date('2026-11-23T10:20:00Z'));
    const before = bench.slack.posts.length;
    await tick('2026-11-26T10:00:30Z');
    const told = channelPosts(before, 'se-reached');
    expect(told).toHaveLength(1);
    expect(told[0]).not.toContain('Denied');
    expect(told[0]).toContain('check whether the change was made');
  });
});
