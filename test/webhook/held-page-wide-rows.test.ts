/**
 * `/autopilot held` when a page's rows are too wide for one Slack section: the table drops the
 * last rows with "(n more not shown)", and the next page must start after the last row shown.
 * It started after the last row read, so the dropped requests were never shown on any page.
 * Ids full of `&` (escaped to `&amp;`, five times as long) make the rows that wide.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { listHeld } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { benchForFile } from '../worker/fixture.js';
import { buildApp } from './harness.js';

const bench = benchForFile();
const EVENING = new Date('2026-11-23T20:00:00Z');
const IDS = Array.from({ length: 12 }, (_, i) => `wide-${String(i + 1).padStart(2, '0')}`);

beforeAll(async () => {
  bench.clock.now = EVENING;
  // CI requests outside office hours: held until 09:00, each naming a trigger and a requester full of `&`.
  for (const [i, requestId] of IDS.entries())
    await bench.send({
      triggerId: `${'&'.repeat(36)}${i}`,
      phaseId: 'ph_1',
      requestId,
      requestedBy: { source: 'ci', id: '&'.repeat(40) },
    });
  const worker = bench.worker();
  for (let i = 0; i < 3; i++) await bench.run(worker, await bench.receive());
  expect(await listHeld(bench.table)).toHaveLength(IDS.length);
});

async function held(text: string): Promise<{ ids: string[]; more?: string }> {
  const now = EVENING.getTime() + 60_000;
  const { app } = buildApp({ held: heldAccess(bench.table), now: () => now });
  const response = await app.request(
    signedRequest('/slack/commands', commandBody({ text }), { timestamp: now / 1000 }),
  );
  expect(response.status).toBe(200);
  const reply = (await response.json()) as {
    blocks?: Array<{ text?: { text: string }; elements?: Array<{ text?: string }> }>;
  };
  const texts = (reply.blocks ?? []).flatMap((b) => [
    b.text?.text ?? '',
    ...(b.elements ?? []).map((e) => e.text ?? ''),
  ]);
  const ids = [...texts.join('\n').matchAll(/^wide-\d\d/gm)].map((m) => m[0]);
  const more = texts.join('\n').match(/`\/autopilot (held[^`]*)` for more/)?.[1];
  return { ids, ...(more ? { more } : {}) };
}

describe('/autopilot held, rows wider than a Slack section', () => {
  it('shows every held request on some page: the next page starts after the last row shown', async () => {
    const seen: string[] = [];
    let page = await held('held');
    expect(page.ids.length).toBeLessThan(10); // the rows are wide enough that a page drops some
    seen.push(...page.ids);
    for (let n = 0; page.more && n < IDS.length; n++) {
      page = await held(page.more);
      seen.push(...page.ids);
    }
    expect(seen).toEqual(IDS);
  });
});
