/**
 * An end the release tick (or `autopilot cancel`, or an answered question) writes at once for a
 * held request (src/worker/cancel-now.ts `endHeldNow`) is told at least once, whatever point its
 * process dies at: no copy of a stuck wait ever comes back to a worker, so the held record is what
 * brings it back to the next tick. Its audit record (the mark that it was told) used to come
 * before the posts, and the held record went first of all: a tick dying in between left the
 * cancel or the expiry untold for good. The deployed tick on the emulators; the death is a table
 * whose calls stop answering right after a given put lands.
 */
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { basePolicy, benchResetEachTest, channelPostsAbout, dyingAfterPut } from './fixture.js';
import { cancelFromSlack, deployedTick, holdStuck } from './stuck.js';

const bench = benchResetEachTest();

type Item = Record<string, { S?: string }>;

/** Ticks at `iso` (the event's time and the worker's clock). */
async function tickAt(tick: ReturnType<typeof deployedTick>, iso: string) {
  bench.clock.now = new Date(iso);
  return tick({ time: iso });
}

const diesAfter: Array<[string, (id: string, result: string) => (item: Item) => boolean]> = [
  [
    'its final',
    (id, result) => (item) =>
      item.pk?.S === `audit#${id}` && item.sk?.S === 'final' && (item.outcome?.S ?? '').includes(result),
  ],
  ['its audit record', (id, result) => (item) => item.requestId?.S === id && item.result?.S === result],
];

for (const [point, dies] of diesAfter) {
  it(`a cancelled stuck wait whose tick died right after ${point} is told once to the channel by a later tick`, async () => {
    const id = `stuck-crash-cancel-${point.length}`;
    await holdStuck(bench, id);
    const policy = await cancelFromSlack(bench, id);
    const before = bench.slack.posts.length;
    const dying = dyingAfterPut(bench, dies(id, 'cancelled'));
    void tickAt(deployedTick({ ...bench, table: dying.table }, policy), '2026-11-23T11:00:30Z');
    await dying.died;

    const tick = deployedTick(bench, policy);
    await tickAt(tick, '2026-11-23T11:01:30Z');
    // Past the dead tick's telling lease: a later tick tells it.
    await tickAt(tick, '2026-11-23T11:16:30Z');
    await tickAt(tick, '2026-11-23T11:17:30Z');

    expect(await readFinal(bench.table, id)).toMatchObject({ result: 'cancelled' });
    const told = channelPostsAbout(bench, id, before);
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain('Cancelled');
    expect((await readAudit(bench.table, id)).filter((r) => r.result === 'cancelled')).toHaveLength(1);
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
  });

  it(`an expired stuck wait whose tick died right after ${point} is told once to the channel by a later tick`, async () => {
    const id = `stuck-crash-expiry-${point.length}`;
    await holdStuck(bench, id);
    const policy = parsePolicy(basePolicy(bench.slack.origin));
    const before = bench.slack.posts.length;
    // Past maxDeferHours (72): the tick ends it as expired.
    const dying = dyingAfterPut(bench, dies(id, 'denied'));
    void tickAt(deployedTick({ ...bench, table: dying.table }, policy), '2026-11-26T10:00:30Z');
    await dying.died;

    const tick = deployedTick(bench, policy);
    await tickAt(tick, '2026-11-26T10:01:30Z');
    await tickAt(tick, '2026-11-26T10:16:30Z');
    await tickAt(tick, '2026-11-26T10:17:30Z');

    expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied', rule: 'maxDeferHours' });
    const told = channelPostsAbout(bench, id, before);
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain('Denied');
    expect((await readAudit(bench.table, id)).filter((r) => r.result === 'denied')).toHaveLength(1);
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
  });
}
