/**
 * The release tick starts no new work once its invocation has less than TICK_MARGIN_MS left
 * (src/worker/release.ts): "a tick that ran out mid-write would leave a send without its audit".
 * The stuck stage checked the time only before each chunk of 100, then ended every stuck wait of
 * the chunk: each end reads the channel's URL (a secret), writes the final and audit record and
 * posts to the requester and the channel (5 s timeout each), so a chunk of cancelled stuck waits
 * with a slow Slack ran on past the 60 s Lambda timeout, killed mid-end, and the due stage
 * (cancels people were told "within a minute") never started. The remaining time is injected.
 */
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { benchResetEachTest } from './fixture.js';
import { cancelFromSlack, deployedTick, holdStuck } from './stuck.js';

const bench = benchResetEachTest();

it('ends no further stuck wait once the invocation is short of time, and the next tick ends the rest', async () => {
  const ids = ['tso-1', 'tso-2', 'tso-3'];
  for (const id of ids)
    await holdStuck(bench, id, { triggerId: `trg_${id}`, requesterId: 'x', rule: 'r', reason: 'r' });
  let policy = await cancelFromSlack(bench, ids[0]!);
  for (const id of ids.slice(1)) policy = await cancelFromSlack(bench, id);
  const tick = deployedTick(bench, policy);

  // Time for the listing, the chunk's read and one end; then under the tick's margin.
  let asked = 0;
  const shortOfTime = { getRemainingTimeInMillis: () => (++asked <= 2 ? 50_000 : 4_000) };
  const first = (await tick({ time: '2026-11-23T11:00:30Z' }, shortOfTime)) as ReleaseSummary;
  expect(first.ended.length).toBeLessThan(ids.length);
  const stillHeld = (await listHeld(bench.table)).map((h) => h.requestId);
  expect(stillHeld.length).toBe(ids.length - first.ended.length);

  const next = (await tick(
    { time: '2026-11-23T11:01:30Z' },
    { getRemainingTimeInMillis: () => 50_000 },
  )) as ReleaseSummary;
  expect([...first.ended, ...next.ended].sort()).toEqual(ids);
  for (const id of ids) expect((await readFinal(bench.table, id))?.result).toBe('cancelled');
  expect(await listHeld(bench.table)).toEqual([]);
});
