/**
 * `/autopilot cancel` of a held request the tick lists as *stuck*. The webhook answers
 * "cancelled … the requester and the channel are told within a minute"; the worker is the one
 * that ends it (the webhook may not), and only the tick sends it to the worker.
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

describe('cancelling a stuck held request', () => {
  it('ends it as cancelled within a minute, as the cancel reply promises', async () => {
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

    // Within a minute: the tick ends it (no copy of a stuck wait comes back to the worker).
    const tock = await releaseHeld(tick, new Date('2026-11-23T11:00:30Z'));
    const final = await readFinal(bench.table, 'rv-stuck-1');
    const left = await listHeld(bench.table);
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
});
