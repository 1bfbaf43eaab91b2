/**
 * The worker's table access is limited by IAM to the partitions a request's decision and
 * execution need, each with only the actions used there (infra/table-grants.ts; asserted on the
 * template in least-privilege.test.ts). This drives the worker's paths that touch the table
 * (decide, execute through the shared mutation budget, replay, deny, limit, ask, defer, pause,
 * the release tick, cancel, transient failures, dead letters) against dynalite through a
 * recording client and checks each request against those grants, so a worker feature that needs
 * more fails here rather than with AccessDenied after a deploy.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { WORKER_TABLE_GRANTS } from '../../infra/table-grants.js';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { ApiConnectionError, clockOf, createConsoleClient } from '../../src/console/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { recordFinal } from '../../src/state/audit.js';
import { claimEffect, releaseEffect } from '../../src/state/effects.js';
import { listHeld } from '../../src/state/held.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { writePause } from '../../src/state/pause.js';
import { type StateTable, WORKER_PARTITION_KEYS } from '../../src/state/table.js';
import { cancelHeldRequest } from '../../src/worker/cancel.js';
import { type ReleaseDeps, releaseHeld } from '../../src/worker/release.js';
import { benchForFile, onReceive, sentAt } from '../worker/fixture.js';
import {
  type Input,
  likePattern,
  recordingClient,
  refused,
  type TableRequest,
  unused,
} from './table-requests.js';

const bench = benchForFile();

const at = (iso: string) => new Date(iso);

describe("the worker's table items", () => {
  it('are only those its IAM policy names, with only the actions granted there, on every path', async () => {
    const requests: TableRequest[] = [];
    // What another copy or a person does between two of this worker's requests (one race at a time).
    let race: ((request: TableRequest, input: Input) => Promise<void>) | undefined;
    const table: StateTable = {
      client: recordingClient(
        bench.table.client,
        requests,
        (r, input) => race?.(r, input) ?? Promise.resolve(),
      ),
      tableName: bench.table.tableName,
    };
    // What a person does meanwhile (pause, cancel): written past the recording client.
    const unrecorded = bench.table;
    // The bench's pinned clock, for the Console client and the shared budget alike.
    const clock = clockOf(() => bench.clock.now.getTime());
    const client = createConsoleClient({
      baseUrl: bench.api.url,
      apiKey: 'sandbox-key',
      maxRetries: 0,
      clock,
      mutationBudget: createSharedMutationBudget(table, { limits: [{ max: 100, perMs: 10_000 }], clock }),
    });
    const worker = bench.worker({ table, client });
    const failing = bench.worker({
      table,
      client: {
        releasePipelineTriggers: {
          approve: async () => {
            throw Object.assign(new ApiConnectionError('connect ECONNREFUSED', false), { attempts: 1 });
          },
        },
        experiments: { disableGroups: async () => ({}) },
        dynamicConfigs: {
          archive: async () => {
            throw Object.assign(new ApiConnectionError('connect ECONNREFUSED', false), { attempts: 1 });
          },
        },
      },
    });
    const tick: ReleaseDeps = {
      table,
      sqs: bench.queue.sqs,
      queueUrl: bench.queue.queueUrl,
      logger: createLogger({ service: 'release', sink: () => {} }),
      signer: createRequesterSigner(async () => bench.requesterKeys),
    };
    const process = async (handler = worker) => bench.run(handler, await bench.receive());
    const admin = { source: 'slack', id: 'U0ADMIN' } as const;

    // Approved and executed (a budget ticket taken); the same message again replays its
    // ending; another request for the same effect is told it happened.
    bench.clock.now = at('2026-11-23T10:00:00Z');
    await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'items-approve' });
    const approve = await bench.receive();
    await bench.run(worker, approve);
    await bench.run(worker, approve);
    await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'items-same-effect' });
    await process();
    expect(bench.approvals('trg_1')).toBe(1);
    // Stale (not the current phase): the ending recorded, the claim given back.
    await bench.send({ triggerId: 'trg_5', phaseId: 'ph_1', requestId: 'items-stale' });
    await process();
    // Denied by rule; over the hourly limit (held until the counter's next hour).
    await bench.send({
      triggerId: 'trg_2',
      phaseId: 'ph_1',
      requestId: 'items-deny',
      requestedBy: { source: 'ci', id: 'blocked' },
    });
    await process();
    for (const [n, trigger] of ['trg_3', 'trg_4'].entries()) {
      await bench.send({
        triggerId: trigger,
        phaseId: 'ph_1',
        requestId: `items-limit-${n}`,
        requestedBy: { source: 'ci', id: 'limited' },
      });
      await process();
    }
    // A transient failure after the counter was taken: claim and counter unit given back.
    await bench.send({
      action: 'archive_config',
      configId: 'old_banner',
      reason: 'unused',
      requestId: 'items-transient',
      requestedBy: admin,
    });
    expect((await process(failing)).batchItemFailures).toHaveLength(1);
    await bench.purge();
    // The stale sweep's archive: the config's last exposure is read with the request's state.
    await bench.send({
      action: 'archive_config',
      configId: 'old_banner',
      reason: 'No exposures for 40 days',
      requestId: 'items-stale',
      requestedBy: { source: 'schedule', id: 'stale-config-sweep' },
    });
    await process();
    // Asked: held, a person told once; with Slack down the "told" mark is taken back.
    await bench.send({
      triggerId: 'trg_6',
      phaseId: 'ph_1',
      requestId: 'items-ask',
      requestedBy: { source: 'schedule', id: 'x' },
    });
    await process();
    bench.slack.setStatus(500);
    await bench.send({
      triggerId: 'trg_7',
      phaseId: 'ph_1',
      requestId: 'items-ask-down',
      requestedBy: { source: 'schedule', id: 'x' },
    });
    expect((await process()).batchItemFailures).toHaveLength(1);
    bench.slack.setStatus(200);
    await bench.purge();
    // A poison message: dead-lettered once (claimed like an effect) and audited.
    await bench.queue.sqs.send(
      new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: JSON.stringify({ version: 1 }) }),
    );
    await process();
    // Given up on its last receive (audited, its end marked); a copy of it sent before, received
    // after, changes nothing and is named on the give-up's record.
    const givenUp = {
      action: 'archive_config',
      configId: 'old_banner',
      reason: 'unused',
      requestId: 'items-given-up',
      requestedBy: admin,
    } as const;
    await bench.send(givenUp);
    await bench.send(givenUp);
    const [lastReceive, lateCopy] = (await bench.receive()).Records;
    const event = (record: typeof lastReceive) => ({ Records: [record!] });
    expect((await bench.run(failing, onReceive(event(lastReceive), 5))).batchItemFailures).toHaveLength(1);
    await bench.run(worker, sentAt(event(lateCopy), at('2026-11-23T09:59:59Z')));
    await bench.purge();

    // Outside the window: deferred (held); the tick sends it back and an attempt that never
    // reaches the platform says so on the held item.
    bench.clock.now = at('2026-11-23T08:00:00Z');
    await bench.send({ triggerId: 'trg_8', phaseId: 'ph_1', requestId: 'items-defer' });
    await process();
    expect((await releaseHeld(tick, at('2026-11-23T09:00:30Z'))).released).toEqual(['items-defer']);
    bench.clock.now = at('2026-11-23T09:00:35Z');
    expect((await process(failing)).batchItemFailures).toHaveLength(1);
    await bench.purge();

    // Paused by a person: held; the tick lists but releases nothing; one is cancelled, sent
    // back and ended; after resume the other is sent back and executed.
    bench.clock.now = at('2026-11-23T10:00:00Z');
    await writePause(unrecorded, { paused: true, by: 'slack:U0ADMIN', at: bench.clock.now });
    await bench.send({ triggerId: 'trg_2', phaseId: 'ph_1', requestId: 'items-paused-1' });
    await bench.send({ triggerId: 'trg_9', phaseId: 'ph_1', requestId: 'items-paused-2' });
    await process();
    expect((await releaseHeld(tick, at('2026-11-23T10:01:00Z'))).released).toEqual([]);
    const cancel = await cancelHeldRequest(
      { table: unrecorded, mayCancel: () => true },
      { requestId: 'items-paused-2', by: 'slack:U0ADMIN', now: at('2026-11-23T10:02:00Z') },
    );
    expect(cancel.ok).toBe(true);
    expect((await releaseHeld(tick, at('2026-11-23T10:02:30Z'))).released).toEqual(['items-paused-2']);
    await process();
    await writePause(unrecorded, { paused: false, by: 'slack:U0ADMIN', at: at('2026-11-23T10:03:00Z') });
    const resumed = await releaseHeld(tick, at('2026-11-23T10:03:30Z'));
    expect(resumed.released.sort()).toEqual(['items-defer', 'items-paused-1']);
    bench.clock.now = at('2026-11-23T10:03:35Z');
    await process();
    expect(bench.approvals('trg_2')).toBe(1);
    expect((await listHeld(unrecorded)).map((h) => h.requestId).sort()).toEqual([
      'items-ask',
      'items-ask-down',
      'items-limit-1',
    ]);

    // Races the code handles, each played once between two of the worker's requests:
    // a person cancels while a redelivered copy writes its wait again (it finds the mark) ...
    const once = (when: (r: TableRequest, input: Input) => boolean, act: () => Promise<unknown>) => {
      race = async (r, input) => {
        if (!when(r, input)) return;
        race = undefined;
        await act();
      };
    };
    const writes = (action: string, pk: string, sk: string) => (r: TableRequest, input: Input) =>
      r.action === action && input.Item?.pk?.S === pk && input.Item.sk?.S === sk;
    bench.clock.now = at('2026-11-24T08:00:00Z');
    await bench.send({ triggerId: 'trg_10', phaseId: 'ph_1', requestId: 'items-race-hold' });
    const early = await bench.receive();
    await bench.run(worker, early);
    // (A wait is written with an update that takes off the last wait's release marks.)
    const holds = (r: TableRequest, input: Input) =>
      r.action === 'dynamodb:UpdateItem' &&
      input.Key?.pk?.S === 'held#all' &&
      input.Key.sk?.S === 'items-race-hold' &&
      (input.UpdateExpression ?? '').includes('REMOVE releasedAt');
    once(holds, () =>
      cancelHeldRequest(
        { table: unrecorded, mayCancel: () => true },
        { requestId: 'items-race-hold', by: 'slack:U0ADMIN', now: bench.clock.now },
      ),
    );
    bench.clock.now = at('2026-11-24T08:10:00Z');
    await bench.run(worker, early);
    // ... another copy claims the effect between this one's read and its claim (in progress) ...
    bench.clock.now = at('2026-11-24T10:00:00Z');
    const effect = 'approve_phase#trg_11#ph_1';
    once(writes('dynamodb:PutItem', `effect#${effect}`, 'claim'), () =>
      claimEffect(unrecorded, effect, {
        owner: 'another-copy',
        lockExpiresAt: Number.MAX_SAFE_INTEGER,
        nowMs: 0,
      }),
    );
    await bench.send({ triggerId: 'trg_11', phaseId: 'ph_1', requestId: 'items-race-claim' });
    expect((await process()).batchItemFailures).toHaveLength(1);
    await releaseEffect(unrecorded, effect, 'another-copy');
    await bench.purge();
    // ... and another copy records the ending of a stale request first (this one tells it).
    const final = {
      result: 'stale',
      reason: 'another copy',
      rule: 'r',
      requestId: 'items-race-final',
      at: '',
    };
    once(writes('dynamodb:PutItem', 'audit#items-race-final', 'final'), () =>
      recordFinal(unrecorded, { ...final, at: bench.clock.now.toISOString() }, bench.clock.now, undefined),
    );
    await bench.send({ triggerId: 'trg_12', phaseId: 'ph_1', requestId: 'items-race-final' });
    await process();
    expect(race).toBeUndefined();

    // The shared budget after a 429 (the pace cut every container reads back) and a ticket that
    // waits for its predecessor: the budget the worker's Console client holds, driven directly.
    // One slot per ms, so each ticket starts at once: the pinned clock never lets a wait end.
    const tight = createSharedMutationBudget(table, { limits: [{ max: 1, perMs: 1 }], clock });
    bench.clock.now = at('2026-11-24T11:00:00Z');
    await (await tight.acquire())({ rateLimited: true });
    bench.clock.now = at('2026-11-24T11:01:00Z');
    await (await tight.acquire())();

    // Each request is allowed by one statement; each action granted on each partition was used;
    // every partition in the list was touched (soft: a failure shows all three).
    expect.soft(refused(requests, WORKER_TABLE_GRANTS)).toEqual([]);
    expect.soft(unused(requests, WORKER_TABLE_GRANTS)).toEqual([]);
    const patterns = [...new Set(Object.values(WORKER_PARTITION_KEYS).flat())].sort();
    const touched = (pattern: string) =>
      requests.some((r) => r.pks.some((pk) => likePattern(pattern).test(pk)));
    expect.soft(patterns.filter((p) => !touched(p))).toEqual([]);
  });
});
