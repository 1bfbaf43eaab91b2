/**
 * A copy of a request arriving while the first copy is between writing the request's end (its
 * final) and its audit record finds the end stored and not yet recorded as told, and tells it as an
 * untold end (tellUntold). The first copy then tells it too: the channel heard the end twice and the
 * trail kept it twice. The first telling is claimed as a later one is, so only one copy tells. The
 * real worker on the emulators; the second copy (SQS delivering the message again, as it may) runs
 * to its end right before the first writes its audit record (no sleeps).
 */
import type { SQSEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { postToSlack } from '../../src/slack/post.js';
import { readAudit } from '../../src/state/audit.js';
import { cancelHeldRequest } from '../../src/worker/cancel.js';
import { endCancelledNow } from '../../src/worker/cancel-now.js';
import { releaseHeld } from '../../src/worker/release.js';
import { basePolicy, benchForFile, channelPostsAbout, runBeforeAuditPut } from './fixture.js';
import { releaseDeps } from './questions.js';

const bench = benchForFile();
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
});

const onReceive = (event: SQSEvent, count: number): SQSEvent => ({
  Records: event.Records.map((r) => ({
    ...r,
    attributes: { ...r.attributes, ApproximateReceiveCount: String(count) },
  })),
});

/** The first copy of `id`'s message, with a second delivery run to its end before its audit record of `result`. */
async function twoDeliveries(id: string, result: string, request: Record<string, unknown>) {
  const before = bench.slack.posts.length;
  await bench.send({ phaseId: 'ph_1', requestId: id, ...request });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  const second = () => bench.run(bench.worker(), onReceive(event, 2));
  const first = bench.worker({ table: runBeforeAuditPut(bench, id, result, second) });
  expect((await bench.run(first, onReceive(event, 1))).batchItemFailures).toEqual([]);
  const told = channelPostsAbout(bench, id, before);
  const recorded = (await readAudit(bench.table, id)).filter((r) => r.result === result);
  return { told, recorded: recorded.length };
}

describe('a copy arriving while the first copy tells the end', () => {
  it('a denial: the channel hears it once and the trail records it once', async () => {
    const { told, recorded } = await twoDeliveries('first-tell-1', 'denied', {
      triggerId: 'trg_1',
      requestedBy: { source: 'ci', id: 'blocked' },
    });
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain('Denied');
    expect(recorded).toBe(1);
  });

  it('an approval: the channel hears "Done" once, the trail records it once, the phase is approved once', async () => {
    const template = bench.api.sandbox.state.triggers.get('trg_1');
    bench.api.sandbox.state.triggers.set('trg_ft', {
      ...structuredClone(template!),
      id: 'trg_ft',
      actions: [],
    });
    const { told, recorded } = await twoDeliveries('first-tell-2', 'approved', { triggerId: 'trg_ft' });
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain('Done');
    expect(recorded).toBe(1);
    expect(bench.approvals('trg_ft')).toBe(1);
  });

  it('a cancel ended at once (autopilot cancel): the copy the tick sent back meanwhile does not tell it again', async () => {
    const id = 'first-tell-3';
    bench.clock.now = new Date('2026-11-23T20:00:00Z'); // outside the CI window: held
    await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: id });
    await bench.run(bench.worker(), await bench.receive());
    const now = new Date('2026-11-23T20:01:00Z');
    bench.clock.now = now;
    const cancelled = await cancelHeldRequest(
      { table: bench.table, mayCancel: () => true },
      { requestId: id, by: 'cli:alice', reason: 'called off', now },
    );
    if (!cancelled.ok) throw new Error(cancelled.message);
    // The tick sends the marked request back; its copy reaches a worker while the CLI is telling.
    await releaseHeld(releaseDeps(bench), now);
    const copy = await bench.receive();
    expect(copy.Records).toHaveLength(1);
    const before = bench.slack.posts.length;
    const table = runBeforeAuditPut(bench, id, 'cancelled', () => bench.run(bench.worker(), copy));
    const channel = parsePolicy(basePolicy(bench.slack.origin)).notifications.slackWebhookUrl;
    await endCancelledNow(table, cancelled.held, cancelled.reason, now, {
      tell: async (urls, message) => {
        for (const url of urls) await postToSlack(url, message, { allowedOrigins: [bench.slack.origin] });
      },
      channelUrl: async () => channel,
    });
    const told = channelPostsAbout(bench, id, before);
    expect(told, told.join('\n')).toHaveLength(1);
    expect(told[0]).toContain('Cancelled');
    expect((await readAudit(bench.table, id)).filter((r) => r.result === 'cancelled')).toHaveLength(1);
  });
});
