/**
 * Two release ticks at once (EventBridge delivers a scheduled event at least once; the local
 * stack's timer may overlap a slow tick) both list a stuck wait and both end it: the first final
 * written is its end, and only its writer tells. The other tick's end lost: it must not log,
 * count or report that it ended the request, and nobody hears it twice. The interleaving is made
 * by the state table the first tick writes through: the second tick runs to its end right before
 * the first writes its final (no sleeps).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { mayCancel } from '../../src/policy/cancel-grant.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit } from '../../src/state/audit.js';
import { holdRequest, listHeld, nextLookText } from '../../src/state/held.js';
import type { StateTable } from '../../src/state/table.js';
import { heldAccess } from '../../src/webhook/held.js';
import { type ReleaseDeps, type ReleaseSummary, releaseHeld } from '../../src/worker/release.js';
import { type Bench, basePolicy, startBench } from './fixture.js';
import { releaseDeps } from './questions.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
});

/** A CI request held for a window at 10:00 on the 23rd, whose three sends never came back. */
async function stuck(requestId: string): Promise<void> {
  const since = '2026-11-23T10:00:00.000Z';
  const request = {
    version: 1,
    action: 'approve_phase',
    triggerId: `trg_${requestId}`,
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy' },
    requestedAt: since,
    requestId,
  } as const;
  const wait = {
    action: 'approve_phase',
    target: `trigger trg_${requestId} phase ph_1`,
    requester: 'ci:deploy',
  };
  await holdRequest(
    bench.table,
    { requestId, ...wait, why: 'window', rule: 'r', reason: 'r', since, nextLook: since, request },
    bench.clock.now,
  );
  for (const hhmm of ['10:01', '10:16', '10:31'])
    await releaseHeld(releaseDeps(bench), new Date(`2026-11-23T${hhmm}:00Z`));
  await bench.purge();
  expect(nextLookText((await listHeld(bench.table)).find((h) => h.requestId === requestId)!)).toContain(
    'stuck',
  );
}

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
    const policy = parsePolicy(basePolicy(bench.slack.origin));
    const at = new Date('2026-11-23T11:00:00Z');
    const marked = await heldAccess(bench.table).cancel(
      { requestId: id, by: 'slack:U0ADMIN', reason: 'clean up', now: at },
      (item) => mayCancel(policy, 'slack:U0ADMIN', item.request, at),
    );
    expect(marked).toMatchObject({ ok: true });
    const race = await twoTicks(id, new Date('2026-11-23T11:00:30Z'));
    expect(race.second.summary?.ended).toEqual([id]);
    expect(race.first.summary.ended).toEqual([]);
    expect(endedLines(race.second.lines, id)).toHaveLength(1);
    expect(endedLines(race.first.lines, id)).toEqual([]);
    expect(race.told).toHaveLength(1);
    expect((await readAudit(bench.table, id)).filter((r) => r.result === 'cancelled')).toHaveLength(1);
  });
});
