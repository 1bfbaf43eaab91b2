/**
 * `/autopilot held [after <id>]` and `/autopilot cancel <id> [reason…]` against held records the real
 * worker writes (dynalite, injected clock): a paged table, and a cancel that needs the grant for
 * the request's action, after which the worker ends the request as cancelled.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { benchForFile } from '../worker/fixture.js';
import { buildApp } from './harness.js';

const bench = benchForFile();
const EVENING = new Date('2026-11-23T20:00:00Z');

beforeAll(async () => {
  bench.clock.now = EVENING;
  // Twelve CI requests outside office hours: held until 09:00; one with a name to escape.
  for (let n = 1; n <= 12; n++)
    await bench.send({
      triggerId: `trg_${n}`,
      phaseId: 'ph_1',
      requestId: `eve-${String(n).padStart(2, '0')}`,
    });
  const worker = bench.worker();
  for (let i = 0; i < 3; i++) await bench.run(worker, await bench.receive());
  expect(await listHeld(bench.table)).toHaveLength(12);
});

function slack() {
  const now = EVENING.getTime() + 60_000;
  const { app } = buildApp({
    held: heldAccess(bench.table),
    now: () => now,
  });
  return async (text: string, userId = 'U0ADMIN') => {
    const response = await app.request(
      signedRequest('/slack/commands', commandBody({ text, userId }), { timestamp: now / 1000 }),
    );
    expect(response.status).toBe(200);
    const reply = (await response.json()) as {
      text: string;
      blocks?: Array<{ text?: { text: string }; elements?: Array<{ text?: string }> }>;
    };
    const texts = (reply.blocks ?? []).flatMap((b) => [
      b.text?.text ?? '',
      ...(b.elements ?? []).map((e) => e.text ?? ''),
    ]);
    return { reply, shown: texts.join('\n') };
  };
}

describe('/autopilot held', () => {
  it('shows held requests ten to a page by request id: id, action, target, requester, why, next look', async () => {
    const say = slack();
    const first = await say('held');
    expect(first.shown).toContain('eve-01');
    expect(first.shown).toMatch(
      /eve-01 +approve_phase +trigger trg_1 phase ph_1 +ci:github-actions\/deploy.yml +window +2026-11-24T09:00Z/,
    );
    expect(first.shown).not.toContain('eve-11');
    expect(first.shown).toContain('12 held · by request id · `/autopilot held after eve-10` for more');
    const second = await say('held after eve-10');
    expect(second.shown).toContain('eve-11');
    expect(second.shown).toContain('eve-12');
    expect(second.shown).not.toContain('for more');
    // The last id shown may have ended since: the next page still starts right after it.
    expect((await say('held after eve-10-ended')).shown).toMatch(/eve-11[\s\S]*eve-12/);
    expect((await say('held after eve-12')).shown).toContain('No held requests after `eve-12`.');
    // A page number (the old way) is refused with the way that works.
    expect((await say('held 2')).reply.text).toContain('`held after &lt;requestId&gt;`, not `2`');
  });
});

describe('/autopilot cancel', () => {
  it('refuses without the grant for the action, and for a request that is not held', async () => {
    const say = slack();
    expect((await say('cancel eve-01 nope', 'U0OPS')).shown).toContain('lack the chat grant "approve_phase"');
    expect((await say('cancel nothing-1')).shown).toContain('is not held');
    expect((await say('cancel')).shown).toContain('missing requestId');
  });

  it('marks it cancelled; the tick sends it back and the worker ends it as cancelled, never executed', async () => {
    const say = slack();
    const answer = await say('cancel eve-02 superseded by <!channel> eve-03');
    expect(answer.shown).toContain('is *cancelled*');
    expect(JSON.stringify(answer.reply)).not.toContain('<!channel>');
    expect((await say('held')).shown).toMatch(/eve-02 .*cancelled, ending/);
    const tick = {
      table: bench.table,
      sqs: bench.queue.sqs,
      queueUrl: bench.queue.queueUrl,
      logger: createLogger({ service: 'release', sink: () => {} }),
    };
    expect((await releaseHeld(tick, new Date(EVENING.getTime() + 90_000))).released).toEqual(['eve-02']);
    bench.clock.now = new Date(EVENING.getTime() + 95_000);
    await bench.run(bench.worker(), await bench.receive());
    expect(await readFinal(bench.table, 'eve-02')).toMatchObject({ result: 'cancelled' });
    expect(bench.approvals('trg_2')).toBe(0);
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('eve-02');
    expect((await say('cancel eve-02')).shown).toContain('is not held');
  });
});
