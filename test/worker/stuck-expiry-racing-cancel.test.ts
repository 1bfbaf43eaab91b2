/**
 * `/autopilot cancel` landing after the release tick listed a stuck wait past its expiry (no
 * cancel mark yet) but before the tick recorded its end as expired. The person is told ":wastebasket:
 * … is *cancelled*: it will not be done"; the request must then end as cancelled, and the channel
 * must not hear "Denied" for it. The deployed tick and the real webhook on the emulators; the
 * cancel is a signed slash command through the webhook's handler, run right after the tick's
 * listing of held requests returns (the state table the tick sees runs it), never by sleeping.
 */
import { expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { basePolicy, benchForFile, channelPostsAbout, runAfterHeldListing } from './fixture.js';
import { chatCommand } from './questions.js';
import { deployedTick, holdStuck } from './stuck.js';

const bench = benchForFile();

it('a cancel after the tick listed an expired stuck wait: it ends cancelled, never told denied', async () => {
  const id = 'stuck-expiry-cancel-1';
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
  await holdStuck(bench, id);
  // Past maxDeferHours (72): the tick would end it as expired.
  bench.clock.now = new Date('2026-11-26T10:00:30Z');
  const before = bench.slack.posts.length;
  let reply = '';
  const table = runAfterHeldListing(bench, async () => {
    reply = await chatCommand(bench, `cancel ${id} release called off`);
  });
  const tick = deployedTick({ ...bench, table }, parsePolicy(basePolicy(bench.slack.origin)));
  await tick({ time: bench.clock.now.toISOString() });

  expect(reply).toContain('is *cancelled*');
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'cancelled', rule: 'cancel' });
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Cancelled');
  expect(told[0]).not.toContain('Denied');
  const ends = (await readAudit(bench.table, id)).map((r) => r.result);
  expect(ends.filter((r) => r === 'denied' || r === 'cancelled')).toEqual(['cancelled']);
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain(id);
});
