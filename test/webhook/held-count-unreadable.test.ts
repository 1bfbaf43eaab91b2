/**
 * `/autopilot held` reads its page and status's capped count together. When only the count
 * failed, the whole reply said "Held requests cannot be read right now", though the page had
 * been read: a release manager in an incident saw nothing. The page is shown without a total.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { heldAccess } from '../../src/webhook/held.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { benchForFile } from '../worker/fixture.js';
import { buildApp } from './harness.js';

const bench = benchForFile();
const EVENING = new Date('2026-11-23T20:00:00Z');

beforeAll(async () => {
  bench.clock.now = EVENING;
  // A CI request outside office hours: held until 09:00.
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'eve-01' });
  await bench.run(bench.worker(), await bench.receive());
});

describe('/autopilot held when the count cannot be read', () => {
  it('shows the page without a total', async () => {
    const now = EVENING.getTime() + 60_000;
    const held = { ...heldAccess(bench.table), count: () => Promise.reject(new Error('throttled')) };
    const { app } = buildApp({ held, now: () => now });
    const response = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'held' }), { timestamp: now / 1000 }),
    );
    expect(response.status).toBe(200);
    const reply = JSON.stringify(await response.json());
    expect(reply).toContain('eve-01');
    expect(reply).not.toContain('cannot be read');
    expect(reply).not.toMatch(/\d+\+? held ·/);
  });
});
