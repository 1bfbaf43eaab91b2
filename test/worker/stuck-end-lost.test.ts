/**
 * Two release ticks at once (EventBridge delivers a scheduled event at least once; the local
 * stack's timer may overlap a slow tick) both list a stuck wait and both end it: the first final
 * written is its end, and only its writer tells. The other tick's end lost: it must not log,
 * count or report that it ended the request, and nobody hears it twice. The interleaving is made
 * by the state table the first tick writes through: the second tick runs to its end right before
 * the first writes its final (no sleeps).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { type ReleaseDeps, type ReleaseSummary, releaseHeld } from '../../src/worker/release.js';
import { basePolicy, benchResetEachTest } from './fixture.js';
import { releaseDeps } from './questions.js';
import { cancelFromSlack, holdStuck } from './stuck.js';

const bench = benchResetEachTest();

/** A stuck wait as the race finds it (held with rule and reason 'r'). */
const stuck = (requestId: string) => holdStuck(bench, requestId, { rule: 'r', reason: 'r' });

/** A tick with the worker's policy (maxDeferHours 72, the channel), on `table`; its log lines. */
function tickDeps(table: StateTable = bench.table) {
  const lines: Array<Record<string, unknown>> = [];
  const deps: ReleaseDeps = {
    ...releaseDeps(bench),
    table,
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    slack: { allowedOrigins: [bench.slack.origin] },
    logger: createLogger({ service: 'release', sink: (line) => lines.push(JSON.parse(line)) }),
  };
  return { deps, lines };
}

/** Two ticks at `at`: the second runs to its end right before the first writes `requestId`'s final. */
async function twoTicks(requestId: string, at: Date) {
  const second = tickDeps();
  let secondSummary: ReleaseSummary | undefined;
  const real = bench.table.client;
  const client = {
    send: async (command: unknown) => {
      const item = command instanceof PutItemCommand ? command.input.Item : undefined;
      if (!secondSummary && item?.sk?.S === 'final' && item?.pk?.S === `audit#${requestId}`)
        secondSummary = await releaseHeld(second.deps, at);
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  const first = tickDeps({ client, tableName: bench.table.tableName });
  const before = bench.slack.posts.length;
  const firstSummary = await releaseHeld(first.deps, at);
  const told = bench.slack.posts
    .slice(before)
    .filter((p) => p.path === '/services/channel')
    .filter((p) => JSON.stringify(p.body).includes(requestId));
  return {
    first: { summary: firstSummary, lines: first.lines },
    second: { summary: secondSummary, lines: second.lines },
    told,
  };
}

const endedLines = (lines: Array<Record<string, unknown>>, requestId: string) =>
  lines.filter((l) => l.requestId === requestId && /stuck held request ended/.test(String(l.message)));

describe('two ticks ending one stuck wait', () => {
  it('past its expiry: the tick whose denial lost neither reports nor logs it as ended by it', async () => {
    const id = 'sel-expired';
    await stuck(id);
    const race = await twoTicks(id, new Date('2026-11-26T10:00:30Z'));
    expect(race.second.summary?.ended).toEqual([id]);
    expect(race.first.summary.ended).toEqual([]);
    expect(endedLines(race.second.lines, id)).toHaveLength(1);
    expect(endedLines(race.first.lines, id)).toEqual([]);
    expect(race.first.lines.find((l) => l.requestId === id)?.message).toContain(
      'another end was recorded first',
    );
    expect(race.told).toHaveLength(1);
    expect((await readAudit(bench.table, id)).filter((r) => r.result === 'denied')).toHaveLength(1);
  });

  it('cancelled: the tick whose cancel lost neither reports nor logs it as ended by it', async () => {
    const id = 'sel-cancelled';
    await stuck(id);
    await cancelFromSlack(bench, id);
    const race = await twoTicks(id, new Date('2026-11-23T11:00:30Z'));
    expect(race.second.summary?.ended).toEqual([id]);
    expect(race.first.summary.ended).toEqual([]);
    expect(endedLines(race.second.lines, id)).toHaveLength(1);
    expect(endedLines(race.first.lines, id)).toEqual([]);
    expect(race.told).toHaveLength(1);
    expect((await readAudit(bench.table, id)).filter((r) => r.result === 'cancelled')).toHaveLength(1);
  });
});
