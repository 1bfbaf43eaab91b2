/**
 * `/autopilot status` is what someone reads before `resume`. It showed "Queued actions 0" while
 * many requests were held waiting for that very `resume` (only `held` listed them): it now says
 * how many are held and why, in broad terms, and points to `held`. The count is bounded (one
 * short read of the held partition): past 50 it says "50+". Held records the real worker writes
 * (dynalite), the real webhook driven with signed Slack requests.
 */
import { describe, expect, it } from 'vitest';
import { holdRequest, listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { questionWebhook, sendAskingRequest } from '../worker/questions.js';

const bench = benchResetEachTest();

/** The status reply's "Held requests" field, as shown (or what was shown instead). */
async function heldField(): Promise<string> {
  const at = bench.clock.now.getTime();
  const { app } = questionWebhook(bench, { now: () => at });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text: 'status', userId: 'U0READER' }), {
      timestamp: Math.floor(at / 1000),
    }),
  );
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { blocks?: Array<{ fields?: Array<{ text: string }> }> };
  const fields = (reply.blocks ?? []).flatMap((b) => b.fields ?? []).map((f) => f.text);
  const held = fields.find((f) => f.startsWith('*Held requests*\n'));
  return held?.slice('*Held requests*\n'.length) ?? `not shown in ${JSON.stringify(fields)}`;
}

describe('status: held requests', () => {
  it('says how many requests are held and why, during a pause, and points to held', async () => {
    // Monday evening: two CI requests wait for the office-hours window, one schedule asks a human.
    bench.clock.now = new Date('2026-11-23T20:00:00Z');
    for (const n of [1, 2])
      await bench.send({ triggerId: `trg_sh${n}`, phaseId: 'ph_1', requestId: `sh-win-${n}` });
    await sendAskingRequest(bench, 'trg_sh3', 'sh-ask-1');
    await bench.run(bench.worker(), await bench.receive());
    // Paused: three more are held until resume.
    await writePause(bench.table, { paused: true, by: 'slack:U0OPS', at: bench.clock.now });
    for (const n of [4, 5, 6])
      await bench.send({ triggerId: `trg_sh${n}`, phaseId: 'ph_1', requestId: `sh-pause-${n}` });
    await bench.run(bench.worker(), await bench.receive());
    expect(await listHeld(bench.table)).toHaveLength(6);

    const shown = await heldField();
    expect(shown).toContain('6 held');
    expect(shown).toContain('3 for resume');
    expect(shown).toContain('2 for a window');
    expect(shown).toContain('1 for an answer in the channel');
    expect(shown).toContain('`/autopilot held`');
  });

  it('caps the count: more than 50 held shows as 50+', async () => {
    const since = bench.clock.now.toISOString();
    const request = {
      version: 1 as const,
      action: 'approve_phase' as const,
      triggerId: 'trg_many',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci' as const, id: 'github-actions/deploy.yml' },
      requestedAt: since,
    };
    for (let n = 0; n < 60; n++) {
      const requestId = `sh-many-${String(n).padStart(2, '0')}`;
      await holdRequest(
        bench.table,
        {
          requestId,
          action: 'approve_phase',
          target: 'trigger trg_many phase ph_1',
          requester: 'ci:github-actions/deploy.yml',
          why: 'paused',
          rule: 'pause',
          reason: 'automation is paused',
          since,
          request: { ...request, requestId },
        },
        bench.clock.now,
      );
    }
    const shown = await heldField();
    expect(shown).toContain('50+ held');
    expect(shown).not.toMatch(/\b(5[1-9]|6\d) /);
  });
});
