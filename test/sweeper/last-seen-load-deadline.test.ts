/**
 * An index grown large before it was bounded (200,000 old ids: some 7,600 BatchWriteItem deletes)
 * is cut down on the run that first loads it, before any event is read. That cut ignored the run's
 * deadline: on DynamoDB, throttled, a run outlived its Lambda (300 s), run after run, and the
 * SweeperErrors alarm rang while nothing else was done. Now the cut stops at the deadline and the
 * run ends there, saying so; the next runs go on from what was evicted. The sweeper on the
 * emulators, with its clock advanced one second per BatchWriteItem (throttled writes).
 */
import { BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { batchPut } from '../../src/state/dynamo-batch.js';
import { loadLastSeen } from '../../src/state/last-seen.js';
import type { StateTable } from '../../src/state/table.js';
import { loadWatchSet, writeWatchEntries } from '../../src/state/watch.js';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  DAY,
  drainQueue,
  freshState,
  makeSweeper,
  memoryLogger,
  NOW,
  rigForTests,
  sortedLog,
} from './harness.js';

const rig = rigForTests({ eventCount: 10 });

/** The table, on which each BatchWriteItem takes a second of `clock` (DynamoDB throttling them). */
function throttledWrites(table: StateTable, clock: { now: number }): StateTable {
  const client = {
    async send(command: Parameters<StateTable['client']['send']>[0]) {
      if (command instanceof BatchWriteItemCommand) clock.now += 1_000;
      return table.client.send(command as never);
    },
  } as StateTable['client'];
  return { client, tableName: table.tableName };
}

it('cuts a large old index down within the run deadline, over several runs, judging nothing from a part of it', async () => {
  const state = await freshState(rig);
  // 2,000 ids logged 100 to 60 days ago, written before the index was bounded, and a config in
  // use (discovered, watched, exposed two days ago) whose entry sorts after all of them.
  const old = Array.from({ length: 2_000 }, (_, i) => ({
    pk: { S: 'lastseen' },
    sk: { S: `user-${String(i).padStart(5, '0')}` },
    lastSeen: { N: String(NOW - 100 * DAY + i * 1_728_000) },
  }));
  await batchPut(state.table, [
    ...old,
    { pk: { S: 'lastseen' }, sk: { S: 'zz_in_use' }, lastSeen: { N: String(NOW - 2 * DAY) } },
  ]);
  await writeWatchEntries(state.table, [
    { configId: 'zz_in_use', watchedSince: NOW - 90 * DAY, origin: 'discovered' },
  ]);
  const log: EventLike[] = [
    { timestamp: String(NOW - DAY), name: 'config_exposure', metadata: { config: 'zz_in_use' } },
  ];

  const clock = { now: NOW };
  const table = throttledWrites(state.table, clock);
  const { logger, lines } = memoryLogger();
  const policy = parsePolicy({
    version: 1,
    actions: { archive_config: { requesters: ['schedule:*'] } },
    sweeper: {
      staleConfigs: { configs: [], discover: true, staleAfterDays: 30, graceDays: 0, dryRun: false },
    },
  });
  // Each run is a Lambda with 30 s left: its deadline is 20 s in (the 10 s safety margin).
  const sweep = async () => {
    const started = clock.now;
    const summary = await makeSweeper(
      rig,
      { ...state, table },
      {
        policy,
        events: sortedLog(() => log),
        clock: () => clock.now,
        lastSeenMaxIds: 50,
        logger,
      },
    ).run({ now: new Date(NOW), remainingMs: () => 30_000 - (clock.now - started) });
    return { summary, tookMs: clock.now - started };
  };

  const first = await sweep();
  expect(first.tookMs).toBeLessThan(30_000);
  expect({
    partial: first.summary.partial,
    stop: first.summary.stop,
    judged: first.summary.stale.judged,
    eventsRead: first.summary.events.eventsRead,
  }).toEqual({ partial: true, stop: 'time', judged: false, eventsRead: 0 });
  expect(first.summary.stale.notJudged).toContain('last-seen index');
  expect(first.summary.lastSeen.evicted).toBeGreaterThan(0);
  // What was evicted stays evicted; the config in use keeps its entry and stays watched.
  const afterFirst = await loadLastSeen(state.table);
  expect(afterFirst.size).toBe(2_001 - first.summary.lastSeen.evicted);
  expect(afterFirst.get('zz_in_use')).toBe(NOW - 2 * DAY);
  expect([...(await loadWatchSet(state.table)).keys()]).toEqual(['zz_in_use']);
  expect(lines.some((l) => l.level === 'warn' && String(l.message).includes('still being cut down'))).toBe(
    true,
  );

  // Later runs go on from there, each within its time, until one reads the log and judges.
  const runs = [first];
  while (!runs.at(-1)?.summary.stale.judged && runs.length < 10) runs.push(await sweep());
  for (const run of runs) expect(run.tookMs).toBeLessThan(30_000);
  const last = runs.at(-1)!;
  expect(runs.length).toBeGreaterThan(2);
  expect({
    judged: last.summary.stale.judged,
    caughtUp: last.summary.events.caughtUp,
    stale: last.summary.stale.stale,
  }).toEqual({
    judged: true,
    caughtUp: true,
    stale: [],
  });
  expect((await loadLastSeen(state.table)).size).toBe(50);
  expect(await drainQueue(rig, state.queueUrl)).toEqual([]);
});
