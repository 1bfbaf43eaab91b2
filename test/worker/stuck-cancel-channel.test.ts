/**
 * A stuck cancelled request the release tick ends tells the channel even when its URL is still
 * in the policy (`notifications.slackWebhookUrl`, deprecated but honoured); it used to read the
 * secret's URL only.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createLogger } from '../../src/observability/logger.js';
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
  await bench?.close();
});
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
});

describe('cancelling a stuck held request, the channel named by the policy file', () => {
  it('tells the channel (policy notifications.slackWebhookUrl, still supported), as the cancel reply promises', async () => {
    const since = '2026-11-23T10:00:00.000Z';
    const request = {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_stuck',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'x' },
      requestedAt: since,
      requestId: 'rv-stuck-1',
    } as const;
    await holdRequest(
      bench.table,
      {
        requestId: 'rv-stuck-1',
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
    // Three sends that never came back (each dead-lettered, say): the wait is stuck.
    for (const hhmm of ['10:01', '10:16', '10:31'])
      await releaseHeld(tick, new Date(`2026-11-23T${hhmm}:00Z`));
    await bench.purge();
    const [stuck] = await listHeld(bench.table);
    expect(nextLookText(stuck!)).toContain('stuck');

    // An operator cancels it from Slack, as the webhook does it; the reply promises an ending.
    const policy = parsePolicy(basePolicy(bench.slack.origin));
    const at = new Date('2026-11-23T11:00:00Z');
    const cancelled = await heldAccess(bench.table).cancel(
      { requestId: 'rv-stuck-1', by: 'slack:U0ADMIN', reason: 'clean up', now: at },
      (held) => mayCancel(policy, 'slack:U0ADMIN', held.request, at),
    );
    expect(cancelled).toMatchObject({ ok: true });

    // Within a minute: the deployed tick (the worker function's entry, with the worker's deps) ends it.
    const entry = createWorkerEntry({
      policy,
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
    const before = bench.slack.posts.length;
    await entry({ time: '2026-11-23T11:00:30Z' });
    expect((await readFinal(bench.table, 'rv-stuck-1'))?.result).toBe('cancelled');
    const told = bench.slack.posts.slice(before).map((p) => p.path);
    // The worker tells the channel of a cancel through the policy's URL when the secret has none
    // (notificationsUrl); the tick's ending must too.
    expect(told).toContain('/services/channel');
  });
});
