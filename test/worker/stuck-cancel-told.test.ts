/**
 * The release tick ends a cancelled stuck wait itself (no copy of it ever comes back to a worker).
 * The channel's URL, a secret, was read after the end's final and audit record: a read that failed
 * then left the request ended, its telling given back, and nobody to tell it, ever. The next tick
 * must tell it. The real tick on the emulators; the failure is injected on the channel-URL reader.
 */
import { expect, it } from 'vitest';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { benchResetEachTest, channelPostsAbout } from './fixture.js';
import { cancelFromSlack, deployedTick, holdStuck } from './stuck.js';

const bench = benchResetEachTest();

it('a cancelled stuck wait whose channel URL cannot be read once is told to the channel by the next tick', async () => {
  const id = 'sct-1';
  await holdStuck(bench, id, { triggerId: 'trg_sct', requesterId: 'x', rule: 'r', reason: 'r' });
  const policy = await cancelFromSlack(bench, id);
  const before = bench.slack.posts.length;
  // The secret's first read fails (Secrets Manager throttled); the next answers.
  let reads = 0;
  const channelUrl = async () => {
    reads += 1;
    if (reads === 1) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    return bench.slack.url('/services/channel');
  };
  const tick = deployedTick(bench, policy, undefined, channelUrl);
  await tick({ time: '2026-11-23T11:00:30Z' }).catch(() => undefined);
  expect(reads).toBeGreaterThanOrEqual(1);
  await tick({ time: '2026-11-23T11:01:30Z' });

  expect((await readFinal(bench.table, id))?.result).toBe('cancelled');
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('ancel');
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'cancelled')).toHaveLength(1);
});
