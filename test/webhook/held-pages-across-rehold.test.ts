/**
 * `/autopilot held` paged through while the release tick holds a request again. The listing was
 * ordered by when each request began its current wait (`since`) and paged by offset: a question
 * the tick sent back at its hourly look and the worker held anew moved from the first page to the
 * end, so the next page showed it a second time and the request it pushed onto the first page
 * (already read) was never shown. A release manager paging during an incident missed a request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { benchForFile } from '../worker/fixture.js';
import { askQuestion, questionWebhook, releaseDeps } from '../worker/questions.js';

const bench = benchForFile();
const IDS = Array.from({ length: 11 }, (_, i) => `ask-${String(i + 1).padStart(2, '0')}`);

beforeAll(async () => {
  // ask-01 is asked at 10:00 (next look 11:00), the others at 10:05 (next look 11:05).
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await askQuestion(bench, 'trg_h01', 'ask-01');
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  for (const [i, id] of IDS.entries()) if (i > 0) await askQuestion(bench, `trg_h${i + 1}`, id);
  expect(await listHeld(bench.table)).toHaveLength(IDS.length);
});

/** The slash command typed at the bench's time through the real webhook: the ids in its table, and its "for more" command. */
async function held(text: string): Promise<{ ids: string[]; more?: string }> {
  const now = bench.clock.now.getTime();
  const { app } = questionWebhook(bench, { now: () => now });
  const response = await app.request(
    signedRequest('/slack/commands', commandBody({ text }), { timestamp: now / 1000 }),
  );
  expect(response.status).toBe(200);
  const reply = (await response.json()) as {
    blocks?: Array<{ text?: { text: string }; elements?: Array<{ text?: string }> }>;
  };
  const tableText = (reply.blocks ?? []).map((b) => b.text?.text ?? '').find((t) => t.startsWith('```'));
  const rows = (tableText ?? '').split('\n').slice(2, -1); // the fence and the header row off
  const hint = (reply.blocks ?? []).flatMap((b) => b.elements ?? []).map((e) => e.text ?? '');
  const more = hint.join('\n').match(/`\/autopilot (held[^`]*)` for more/)?.[1];
  return { ids: rows.map((row) => row.split(/\s+/)[0] ?? ''), ...(more ? { more } : {}) };
}

describe('/autopilot held, paged', () => {
  it('shows every held request exactly once though the tick holds one again between two pages', async () => {
    bench.clock.now = new Date('2026-11-23T10:59:00Z');
    const first = await held('held');
    expect(first.ids).toContain('ask-01');
    expect(first.more).toBeDefined();

    // 11:00: ask-01's hourly look. The tick sends it back; the worker asks again and holds it anew.
    bench.clock.now = new Date('2026-11-23T11:00:30Z');
    expect((await releaseHeld(releaseDeps(bench), bench.clock.now)).released).toEqual(['ask-01']);
    await bench.run(bench.worker(), await bench.receive());
    const again = (await listHeld(bench.table)).find((h) => h.requestId === 'ask-01');
    expect(again?.since).toBe('2026-11-23T11:00:30.000Z');

    bench.clock.now = new Date('2026-11-23T11:01:00Z');
    const shown = [...first.ids];
    let next = first.more;
    for (let pages = 1; next !== undefined && pages < 5; pages++) {
      const page = await held(next);
      shown.push(...page.ids);
      next = page.more;
    }
    expect([...shown].sort()).toEqual(IDS);
  });
});
