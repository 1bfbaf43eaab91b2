import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { ApiConnectionError, ApiTimeoutError, makeApiError } from '../../src/console/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import {
  endHold,
  type HeldRecord,
  holdRequest,
  listHeld,
  lookNow,
  nextLookText,
} from '../../src/state/held.js';
import { markCancelled, startExecutingHeld, stopExecutingHeld } from '../../src/state/held-gates.js';
import { writePause } from '../../src/state/pause.js';
import { writeVeto } from '../../src/state/veto.js';
import { cancelHeldRequest } from '../../src/worker/cancel.js';
import { endCancelledNow } from '../../src/worker/cancel-now.js';
import { type ReleaseDeps, releaseHeld } from '../../src/worker/release.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { benchResetEachTest } from './fixture.js';

// Held requests: recorded while they wait, released by the tick (never by a delayed copy),
// cancelled for good. Each test leaves no held record behind (the tick sees the whole table).
const bench = benchResetEachTest();
let worker: WorkerHandler;
let tick: ReleaseDeps;

beforeAll(async () => {
  worker = bench.worker();
  tick = {
    table: bench.table,
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    logger: createLogger({ service: 'release', sink: () => {} }),
    // The worker's keys: a released copy is vouched for as the original was.
    signer: createRequesterSigner(async () => bench.requesterKeys),
  };
});

const at = (iso: string) => new Date(iso);
const results = async (requestId: string) => (await readAudit(bench.table, requestId)).map((r) => r.result);
/** A worker whose approve fails with `error`, after one attempt of the client. */
const failingWith = (error: Error) =>
  bench.worker({
    client: {
      releasePipelineTriggers: {
        approve: async () => {
          throw Object.assign(error, { attempts: 1 });
        },
      },
      experiments: { disableGroups: async () => ({}) },
      dynamicConfigs: { archive: async () => ({}) },
    },
  });

describe('held requests', () => {
  it('holds paused requests, cancels one for good, and releases the others within a minute of resume, once each', async () => {
    await writePause(bench.table, {
      paused: true,
      by: 'slack:U0ADMIN',
      reason: 'incident',
      at: bench.clock.now,
    });
    for (const n of [1, 2, 3])
      await bench.send({ triggerId: `trg_${n}`, phaseId: 'ph_1', requestId: `held-${n}` });
    const first = await bench.receive();
    expect(first.Records).toHaveLength(3);
    await bench.run(worker, first);

    const held = await listHeld(bench.table);
    expect(held.map((h) => [h.requestId, h.action, h.target, h.requester, h.why, h.nextLook])).toEqual([
      [
        'held-1',
        'approve_phase',
        'trigger trg_1 phase ph_1',
        'ci:github-actions/deploy.yml',
        'paused',
        undefined,
      ],
      [
        'held-2',
        'approve_phase',
        'trigger trg_2 phase ph_1',
        'ci:github-actions/deploy.yml',
        'paused',
        undefined,
      ],
      [
        'held-3',
        'approve_phase',
        'trigger trg_3 phase ph_1',
        'ci:github-actions/deploy.yml',
        'paused',
        undefined,
      ],
    ]);
    expect(held[0]?.reason).toContain('automation is paused by slack:U0ADMIN');
    // No delayed copy on the queue, and the tick releases nothing while the pause holds.
    expect((await bench.receive()).Records).toHaveLength(0);
    expect((await releaseHeld(tick, at('2026-11-23T10:05:00Z'))).released).toEqual([]);

    // `/autopilot cancel` marks it; the tick sends it back at once, pause or not; the worker ends it.
    const cancelled = await cancelHeldRequest(
      { table: bench.table, mayCancel: () => true },
      { requestId: 'held-2', by: 'slack:U0ADMIN', reason: 'wrong phase', now: at('2026-11-23T10:06:00Z') },
    );
    expect(cancelled).toMatchObject({ ok: true });
    expect((await releaseHeld(tick, at('2026-11-23T10:06:30Z'))).released).toEqual(['held-2']);
    const channelPosts = () => bench.slack.posts.filter((p) => p.path === '/services/channel').length;
    const postsBefore = channelPosts();
    bench.clock.now = at('2026-11-23T10:06:35Z');
    await bench.run(worker, await bench.receive());
    expect(channelPosts()).toBe(postsBefore + 1);
    expect(await readFinal(bench.table, 'held-2')).toMatchObject({ result: 'cancelled', rule: 'cancel' });
    expect((await listHeld(bench.table)).map((h) => h.requestId)).toEqual(['held-1', 'held-3']);

    // Resume at 10:10; the next tick (10:10:30) sends both back with their ids.
    await writePause(bench.table, { paused: false, by: 'slack:U0ADMIN', at: at('2026-11-23T10:10:00Z') });
    const released = await releaseHeld(tick, at('2026-11-23T10:10:30Z'));
    expect(released.released.sort()).toEqual(['held-1', 'held-3']);
    // A second tick a moment later does not send them again.
    expect((await releaseHeld(tick, at('2026-11-23T10:11:30Z'))).released).toEqual([]);

    bench.clock.now = at('2026-11-23T10:10:40Z');
    const back = await bench.receive();
    expect(back.Records.map((r) => JSON.parse(r.body).requestId).sort()).toEqual(['held-1', 'held-3']);
    // The released copies race a redelivery of the originals (and of the cancelled one's copy).
    await Promise.all([bench.run(worker, back), bench.run(worker, first)]);
    expect([bench.approvals('trg_1'), bench.approvals('trg_2'), bench.approvals('trg_3')]).toEqual([1, 0, 1]);
    expect(await listHeld(bench.table)).toEqual([]);
    expect(await results('held-2')).toEqual(['deferred', 'released', 'cancelled', 'replayed']);
    expect((await results('held-1')).slice(0, 3)).toEqual(['deferred', 'released', 'approved']);
  });

  it("releases a request over the hourly limit when the counter's next hour begins", async () => {
    const limited = { source: 'ci', id: 'limited' } as const;
    await bench.send({ triggerId: 'trg_6', phaseId: 'ph_2', requestId: 'limit-a', requestedBy: limited });
    await bench.send({ triggerId: 'trg_7', phaseId: 'ph_2', requestId: 'limit-b', requestedBy: limited });
    const event = await bench.receive();
    for (const record of event.Records) await bench.run(worker, { Records: [record] });
    const [held] = await listHeld(bench.table);
    expect(held).toMatchObject({ why: 'limit', nextLook: '2026-11-23T11:00:00.000Z' });
    expect((await releaseHeld(tick, at('2026-11-23T10:59:59Z'))).released).toEqual([]);
    expect((await releaseHeld(tick, at('2026-11-23T11:00:30Z'))).released).toEqual([held?.requestId]);
    bench.clock.now = at('2026-11-23T11:00:35Z');
    await bench.run(worker, await bench.receive());
    expect(bench.approvals('trg_6') + bench.approvals('trg_7')).toBe(2);
    expect(await listHeld(bench.table)).toEqual([]);
  });

  it('refuses to cancel a request that is not held, or without the grant', async () => {
    const deps = { table: bench.table, mayCancel: () => 'you lack the chat grant approve_phase' as const };
    expect(
      await cancelHeldRequest(deps, { requestId: 'never-held', by: 'cli:alice', now: bench.clock.now }),
    ).toMatchObject({ ok: false, code: 'not-held' });
    bench.clock.now = at('2026-11-23T08:00:00Z');
    await bench.send({ triggerId: 'trg_8', phaseId: 'ph_1', requestId: 'early-1' });
    await bench.run(worker, await bench.receive());
    expect(
      await cancelHeldRequest(deps, { requestId: 'early-1', by: 'cli:alice', now: bench.clock.now }),
    ).toMatchObject({ ok: false, code: 'not-allowed', message: 'you lack the chat grant approve_phase' });
    const allowed = { table: bench.table, mayCancel: () => true as const };
    const done = await cancelHeldRequest(allowed, {
      requestId: 'early-1',
      by: 'cli:alice',
      now: bench.clock.now,
    });
    expect(done).toMatchObject({ ok: true });
    if (done.ok) await endCancelledNow(bench.table, done.held, done.reason, bench.clock.now);
    expect(await readFinal(bench.table, 'early-1')).toMatchObject({ result: 'cancelled' });
    expect(await listHeld(bench.table)).toEqual([]);
  });

  it('lets exactly one of a cancel and a worker starting to execute win, whichever writes first', async () => {
    const request = {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_9',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'x' },
      requestedAt: bench.clock.now.toISOString(),
      requestId: 'race-1',
    } as const;
    const record = {
      requestId: 'race-1',
      action: 'approve_phase',
      target: 'trigger trg_9 phase ph_1',
      requester: 'ci:x',
      why: 'window' as const,
      rule: 'r',
      reason: 'r',
      since: bench.clock.now.toISOString(),
      request,
    };
    const mark = { by: 'slack:U0ADMIN', at: bench.clock.now.toISOString() };
    await holdRequest(bench.table, record, bench.clock.now);
    expect(await startExecutingHeld(bench.table, 'race-1', 'worker-a')).toEqual({ state: 'go' });
    expect(await markCancelled(bench.table, 'race-1', mark)).toBe('executing');

    // Held again by another copy meanwhile: worker-a may still be calling the API, so its mark
    // stays until worker-a itself takes it off (it did not execute after all).
    await holdRequest(bench.table, { ...record, since: '2026-11-23T10:00:01.000Z' }, bench.clock.now);
    expect(await markCancelled(bench.table, 'race-1', mark)).toBe('executing');
    await stopExecutingHeld(bench.table, 'race-1', 'worker-a');
    expect(await markCancelled(bench.table, 'race-1', mark)).toBe('marked');
    // A copy held again after the cancel leaves the mark where it is, and is told of it.
    expect(
      await holdRequest(bench.table, { ...record, since: '2026-11-23T10:00:02.000Z' }, bench.clock.now),
    ).toEqual({ state: 'cancelled', cancel: mark });
    expect(await startExecutingHeld(bench.table, 'race-1', 'worker-b')).toEqual({
      state: 'cancelled',
      cancel: mark,
    });
    expect(await markCancelled(bench.table, 'race-1', mark)).toBe('already-cancelled');
    await endHold(bench.table, 'race-1');
    expect(await markCancelled(bench.table, 'race-1', mark)).toBe('not-held');
    expect(await startExecutingHeld(bench.table, 'race-1', 'worker-c')).toEqual({ state: 'gone' });
  });

  it('never erases a cancel marked while a copy of the request is being held again', async () => {
    bench.clock.now = at('2026-11-23T08:00:00Z'); // before the 09:00 window: held
    await bench.send({ triggerId: 'trg_cx', phaseId: 'ph_1', requestId: 'cx-1' });
    const first = await bench.receive();
    await bench.run(worker, first);
    expect((await listHeld(bench.table)).map((h) => [h.requestId, h.why])).toEqual([['cx-1', 'window']]);

    // A redelivered copy at 08:10 reads the request's state (held, not cancelled); between that
    // read and its writing the wait again, a person cancels and is told it worked.
    let cancelled: unknown;
    const table = {
      tableName: bench.table.tableName,
      client: {
        send: async (command: unknown) => {
          // The copy's write of its wait (an update that takes off the last wait's release marks).
          const hold =
            command instanceof UpdateItemCommand &&
            command.input.Key?.pk?.S?.startsWith('held#') &&
            command.input.Key?.sk?.S === 'cx-1' &&
            command.input.UpdateExpression?.includes('REMOVE releasedAt');
          if (cancelled === undefined && hold) {
            cancelled = await cancelHeldRequest(
              { table: bench.table, mayCancel: () => true },
              { requestId: 'cx-1', by: 'slack:U0ADMIN', reason: 'wrong build', now: bench.clock.now },
            );
          }
          return bench.table.client.send(command as UpdateItemCommand);
        },
      },
    } as typeof bench.table;
    bench.clock.now = at('2026-11-23T08:10:00Z');
    await bench.run(bench.worker({ table }), first);
    expect(cancelled).toMatchObject({ ok: true });

    // The copy found the mark instead of erasing it, and ended the request as cancelled.
    expect(await readFinal(bench.table, 'cx-1')).toMatchObject({ result: 'cancelled', rule: 'cancel' });
    expect(await listHeld(bench.table)).toEqual([]);
    bench.clock.now = at('2026-11-23T09:00:35Z');
    await bench.run(worker, first);
    expect(bench.approvals('trg_cx')).toBe(0);
    // (The copy's deferral and its ending share one instant: their audit order is not fixed.)
    expect((await results('cx-1')).sort()).toEqual(['cancelled', 'deferred', 'deferred', 'replayed']);
  });

  it('can still cancel a held request whose attempt never reached the platform, and not one whose attempt may have', async () => {
    const rateLimited = makeApiError({
      status: 429,
      headers: {},
      body: undefined,
      method: 'PUT',
      path: '/x',
    });
    const cases = [
      { id: 'ex-429', error: rateLimited, cancellable: true },
      { id: 'ex-refused', error: new ApiConnectionError('connect ECONNREFUSED', false), cancellable: true },
      { id: 'ex-budget', error: new ApiTimeoutError('the budget', false), cancellable: true },
      {
        id: 'ex-timeout',
        error: new ApiTimeoutError('no complete response within 10000 ms'),
        cancellable: false,
      },
      { id: 'ex-reset', error: new ApiConnectionError('socket hang up', true), cancellable: false },
      {
        id: 'ex-5xx',
        error: makeApiError({ status: 502, headers: {}, body: undefined, method: 'PUT', path: '/x' }),
        cancellable: false,
      },
    ];
    const outcomes: Array<[string, string]> = [];
    for (const [i, c] of cases.entries()) {
      bench.clock.now = at('2026-11-23T08:00:00Z');
      await bench.send({ triggerId: `trg_ex${i}`, phaseId: 'ph_1', requestId: c.id });
      await bench.run(worker, await bench.receive());
      expect((await releaseHeld(tick, at('2026-11-23T09:00:30Z'))).released).toEqual([c.id]);
      bench.clock.now = at('2026-11-23T09:00:35Z');
      const out = await bench.run(failingWith(c.error), await bench.receive());
      expect(out.batchItemFailures).toHaveLength(1); // left for SQS to retry: nothing ran
      const cancel = await cancelHeldRequest(
        { table: bench.table, mayCancel: () => true },
        { requestId: c.id, by: 'slack:U0ADMIN', now: at('2026-11-23T09:01:00Z') },
      );
      outcomes.push([c.id, cancel.ok ? 'cancelled' : cancel.code]);
      await endHold(bench.table, c.id);
      await bench.purge();
    }
    expect(outcomes).toEqual(cases.map((c) => [c.id, c.cancellable ? 'cancelled' : 'executing']));
  });

  it('never lets a cancel through once an attempt may have reached the platform, whatever later attempts meet', async () => {
    const cancel = (at: string) =>
      cancelHeldRequest(
        { table: bench.table, mayCancel: () => true },
        { requestId: 'lost-1', by: 'slack:U0ADMIN', now: new Date(at) },
      );
    bench.clock.now = at('2026-11-23T08:00:00Z');
    await bench.send({ triggerId: 'trg_lost', phaseId: 'ph_1', requestId: 'lost-1' });
    await bench.run(worker, await bench.receive());
    expect((await releaseHeld(tick, at('2026-11-23T09:00:30Z'))).released).toEqual(['lost-1']);
    bench.clock.now = at('2026-11-23T09:00:35Z');
    // Attempt 1 timed out in flight: the phase may have been approved.
    const timeout = new ApiTimeoutError('no complete response within 10000 ms');
    expect((await bench.run(failingWith(timeout), await bench.receive())).batchItemFailures).toHaveLength(1);
    expect(await cancel('2026-11-23T09:00:40Z')).toMatchObject({ ok: false, code: 'executing' });
    // Its retry meets a 429 (that attempt provably reached nothing), then the window closes and it
    // is held again: neither takes away what attempt 1 may have done.
    await bench.send({
      triggerId: 'trg_lost',
      phaseId: 'ph_1',
      requestId: 'lost-1',
      requestedAt: '2026-11-23T08:00:00.000Z',
    });
    const rateLimited = makeApiError({
      status: 429,
      headers: {},
      body: undefined,
      method: 'PUT',
      path: '/x',
    });
    bench.clock.now = at('2026-11-23T09:01:00Z');
    expect((await bench.run(failingWith(rateLimited), await bench.receive())).batchItemFailures).toHaveLength(
      1,
    );
    expect(await cancel('2026-11-23T09:01:10Z')).toMatchObject({ ok: false, code: 'executing' });
    await endHold(bench.table, 'lost-1');
    await bench.purge();
  });

  it('stops sending back a wait whose copies never come back, and lists it as stuck', async () => {
    const since = '2026-11-23T10:00:00.000Z';
    const request = {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_10',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'x' },
      requestedAt: since,
      requestId: 'lost-1',
    } as const;
    await holdRequest(
      bench.table,
      {
        requestId: 'lost-1',
        action: 'approve_phase',
        target: 'trigger trg_10 phase ph_1',
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
    // Nobody processes the copies (as if each were dead-lettered): sent back every 15 minutes, three times.
    const counts: number[] = [];
    for (const hhmm of ['10:01', '10:16', '10:31', '10:46', '11:01'])
      counts.push((await releaseHeld(tick, at(`2026-11-23T${hhmm}:00Z`))).released.length);
    expect(counts).toEqual([1, 1, 1, 0, 0]);
    const [stuck] = await listHeld(bench.table);
    expect(nextLookText(stuck as HeldRecord)).toBe('stuck: sent back 3 times (see the DLQ)');
    await endHold(bench.table, 'lost-1');
    await bench.purge();
  });

  it('looks at an asked request at once after a Deny, and ends its hold by the veto', async () => {
    await bench.send({
      triggerId: 'trg_11',
      phaseId: 'ph_4',
      requestId: 'asked-1',
      requestedBy: { source: 'schedule', id: 'nightly' },
    });
    await bench.run(worker, await bench.receive());
    const [asked] = await listHeld(bench.table);
    expect(asked).toMatchObject({ requestId: 'asked-1', why: 'ask', nextLook: '2026-11-23T11:00:00.000Z' });
    expect(await lookNow(bench.table, 'never-held', bench.clock.now)).toBe(false);
    // The Deny click: a veto, then the hold is looked at by the next tick.
    await writeVeto(bench.table, 'approve_phase#trg_11#ph_4', {
      by: 'slack:U0ADMIN',
      at: bench.clock.now.toISOString(),
    });
    expect(await lookNow(bench.table, 'asked-1', at('2026-11-23T10:01:00Z'))).toBe(true);
    expect((await releaseHeld(tick, at('2026-11-23T10:01:30Z'))).released).toEqual(['asked-1']);
    bench.clock.now = at('2026-11-23T10:01:35Z');
    await bench.run(worker, await bench.receive());
    expect(await readFinal(bench.table, 'asked-1')).toMatchObject({ result: 'denied', rule: 'veto' });
    expect(await listHeld(bench.table)).toEqual([]);
  });
});
