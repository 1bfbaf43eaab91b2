/**
 * A request held by a pause is released by `resume`, however long the pause lasted ("a wait of any
 * length costs one held-record write"). Its held record was written with the state table's TTL
 * (`expiresAt`, 30 days on), and nothing writes it again while automation is paused (the tick
 * sends nothing back, the worker never sees it): after a pause of more than 30 days DynamoDB's TTL
 * deleted it, and on resume the request was neither released nor ended. Nobody was told; its trail
 * still said "held until someone resumes automation", and a CI gate on its id waited forever.
 *
 * dynalite runs no TTL, so the test deletes what DynamoDB's TTL would: every item whose
 * `expiresAt` (epoch seconds) is in the past.
 */
import { DeleteItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { basePolicy, benchResetEachTest, channelPostsAbout } from './fixture.js';
import { deployedTick } from './stuck.js';

const bench = benchResetEachTest();

/** What DynamoDB's TTL does by `now`: deletes every item whose `expiresAt` has passed. */
async function runTableTtl(now: Date): Promise<void> {
  const { Items = [] } = await bench.table.client.send(new ScanCommand({ TableName: bench.table.tableName }));
  const nowSeconds = Math.floor(now.getTime() / 1000);
  for (const item of Items) {
    const expiresAt = item.expiresAt?.N;
    if (expiresAt !== undefined && Number(expiresAt) < nowSeconds && item.pk && item.sk)
      await bench.table.client.send(
        new DeleteItemCommand({ TableName: bench.table.tableName, Key: { pk: item.pk, sk: item.sk } }),
      );
  }
}

describe('a request held by a pause longer than the held record’s clean-up', () => {
  it('is still there on resume, and ends told (denied as expired)', async () => {
    const policy = parsePolicy(basePolicy(bench.slack.origin));
    const pausedAt = new Date('2026-11-23T09:00:00Z');
    await writePause(bench.table, {
      paused: true,
      by: 'slack:U0ADMIN',
      reason: 'year-end freeze',
      at: pausedAt,
    });
    try {
      // Monday 10:00 UTC, inside office hours: only the pause holds it.
      await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'long-pause-1' });
      await bench.run(bench.worker(), await bench.receive());
      expect((await listHeld(bench.table)).map((h) => [h.requestId, h.why])).toEqual([
        ['long-pause-1', 'paused'],
      ]);

      // The pause lasts five weeks; the tick runs meanwhile (here once a day: it runs every
      // minute) and sends nothing back, while DynamoDB's TTL deletes what has expired.
      const entry = deployedTick(bench, policy);
      const tick = async (event: { time: string }) => (await entry(event)) as ReleaseSummary;
      const day = 86_400_000;
      for (let at = pausedAt.getTime() + day; at < Date.parse('2026-12-28T10:00:00Z'); at += day) {
        expect((await tick({ time: new Date(at).toISOString() })).released).toEqual([]);
        await runTableTtl(new Date(at));
      }
      const resumedAt = new Date('2026-12-28T10:00:00Z');
      await runTableTtl(resumedAt);
      expect((await listHeld(bench.table)).map((h) => h.requestId)).toEqual(['long-pause-1']);

      await writePause(bench.table, { paused: false, by: 'slack:U0ADMIN', at: resumedAt });
      bench.clock.now = new Date('2026-12-28T10:00:30Z');
      const released = await tick({ time: bench.clock.now.toISOString() });
      expect(released.released).toEqual(['long-pause-1']);
      const before = bench.slack.posts.length;
      bench.clock.now = new Date('2026-12-28T10:00:40Z');
      await bench.run(bench.worker(), await bench.receive());
      // Past its maxDeferHours: denied, and the channel hears it.
      expect(await outcomeNow(bench.table, 'long-pause-1')).toMatchObject({
        result: 'denied',
        rule: 'maxDeferHours',
      });
      expect(channelPostsAbout(bench, 'long-pause-1', before)).toHaveLength(1);
      expect(bench.approvals('trg_1')).toBe(0);
    } finally {
      await writePause(bench.table, { paused: false, by: 'slack:U0ADMIN', at: pausedAt });
    }
  });
});
