/**
 * The sweeper's table access is limited by IAM to its own partitions, each with only the
 * actions it uses there (infra/table-grants.ts; asserted on the template in
 * least-privilege.test.ts). This drives every sweeper path that touches the table against
 * dynalite through a recording client and checks each request against those grants, so a new
 * sweeper feature that needs more fails here rather than with AccessDenied after a deploy, and
 * a grant nothing uses any more fails here too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SWEEPER_TABLE_GRANTS } from '../../infra/table-grants.js';
import type { NewEvent as SandboxEvent } from '../../src/sandbox/index.js';
import { writePause } from '../../src/state/pause.js';
import { acquireLease, releaseLease } from '../../src/state/sweep-lease.js';
import { type StateTable, SWEEPER_PARTITION_KEYS } from '../../src/state/table.js';
import {
  DAY,
  drainQueue,
  freshState,
  makeSweeper,
  NOW,
  policyWith,
  type Rig,
  startRig,
} from '../sweeper/harness.js';
import { likePattern, recordingClient, refused, type TableRequest, unused } from './table-requests.js';

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig?.close();
});

describe("the sweeper's table items", () => {
  it('are only those its IAM policy names, with only the actions granted there, on every path', async () => {
    const state = await freshState(rig);
    const requests: TableRequest[] = [];
    const table: StateTable = {
      client: recordingClient(state.table.client, requests),
      tableName: state.table.tableName,
    };
    // What a person or another run does meanwhile: written past the recording client.
    const unrecorded = state.table;
    const sweeperFor = (patch: Parameters<typeof policyWith>[1] = () => {}) =>
      makeSweeper(
        rig,
        { table, queueUrl: state.queueUrl },
        {
          policy: policyWith(rig, (p) => {
            p.sweeper!.staleConfigs!.configs = ['new_checkout_copy', 'checkout_legacy'];
            patch(p);
          }),
          ruleMaxAgeMs: 7 * DAY,
          // Several flushes per run, so the cursor is saved between them as well as at the end.
          flushEvery: 500,
        },
      );

    // First run: no cursor yet; the whole history, rule requests and notifications, the
    // last-seen index and the watch set written, a stale config queued and the summary posted.
    const first = await sweeperFor().run({ now: new Date(NOW) });
    expect(first.partial).toBe(false);
    expect(first.events.flushes).toBeGreaterThan(1);
    expect(first.rules.enqueued).toBeGreaterThan(0);
    expect(first.rules.notified).toBeGreaterThan(0);
    expect(first.stale.queued).toEqual(['new_checkout_copy']);
    await drainQueue(rig, state.queueUrl);

    // A later run: from the cursor, new events (a notification, an exposure, a rule request);
    // the stale summary is unchanged, so it is found among the posted marks and not posted again.
    const t = NOW + 10_000;
    const event = (i: number, name: string, metadata: Record<string, unknown>) => ({
      timestamp: String(t + i),
      name,
      source: 'web',
      value: '/',
      userID: `u${i}`,
      metadata,
    });
    rig.sandbox.sandbox.addEvents([
      event(1, 'experiment_started', { experiment: 'exp_items' }),
      event(2, 'config_exposure', { config: 'discovered_later' }),
      event(3, 'release_checks_passed', { phase: 'canary', triggerID: 'trg_items', phaseID: 'ph_1' }),
    ] as SandboxEvent[]);
    const later = await sweeperFor().run({ now: new Date(t + 1000) });
    expect(later.events.newEvents).toBe(3);
    expect(later.rules).toMatchObject({ enqueued: 1, notified: 1 });
    await drainQueue(rig, state.queueUrl);

    // Another run holds the lease (until the end of time, so whatever the machine's clock says):
    // this one takes nothing and skips.
    expect(await acquireLease(unrecorded, 'another-run', 0, Number.MAX_SAFE_INTEGER)).toBe(true);
    expect((await sweeperFor().run({ now: new Date(t + 2000) })).stop).toBe('leased');
    await releaseLease(unrecorded, 'another-run');

    // A config in use weeks later (the sweep judges only while some exposure is recorded in its window).
    rig.sandbox.sandbox.addEvents([
      {
        ...event(4, 'config_exposure', { config: 'in_use_items' }),
        timestamp: String(NOW + 40 * DAY - 60_000),
      },
    ] as SandboxEvent[]);
    // Paused by a person: the stale sweep judges but queues nothing; a dry run would-queue.
    await writePause(unrecorded, { paused: true, by: 'slack:U0ADMIN', at: new Date(t) });
    const paused = await sweeperFor((p) => {
      p.sweeper!.staleConfigs!.configs = ['never_exposed_items'];
    }).run({ now: new Date(NOW + 40 * DAY) });
    expect(paused).toMatchObject({ paused: true, stale: { judged: true, queued: [] } });
    const dryRun = await sweeperFor((p) => {
      p.sweeper!.staleConfigs!.dryRun = true;
    }).run({ now: new Date(NOW + 41 * DAY) });
    expect(dryRun.stale.dryRun).toBe(true);
    expect(dryRun.stale.wouldQueue.length).toBeGreaterThan(0);
    expect(await drainQueue(rig, state.queueUrl)).toEqual([]);

    // Each request is allowed by one statement; each action granted on each partition was used;
    // every partition in the list was touched, and nothing else (soft: a failure shows all three).
    expect.soft(refused(requests, SWEEPER_TABLE_GRANTS)).toEqual([]);
    expect.soft(unused(requests, SWEEPER_TABLE_GRANTS)).toEqual([]);
    // (`audit#stale:*` is a pattern: the outcomes of its own archives, read to ask a denied one again.)
    const patterns = Object.values(SWEEPER_PARTITION_KEYS).flat();
    const touched = [...new Set(requests.flatMap((r) => r.pks))].sort();
    const listed = (pk: string) => patterns.some((p) => likePattern(p).test(pk));
    expect.soft(touched.filter((pk) => !listed(pk))).toEqual([]);
    expect.soft(patterns.filter((p) => !touched.some((pk) => likePattern(p).test(pk))).sort()).toEqual([]);
  });
});
