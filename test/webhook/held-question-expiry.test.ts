/**
 * `held` showed a held question's hourly next look but not when it expires unanswered
 * (`requestedAt` + `approvals.maxDeferHours`, the instant after which the worker denies it and an
 * Approve click is refused): someone reading the list could not tell an hour-old question from one
 * about to be denied. The question's row now says "expires <time>", to the minute as `held`'s
 * other times. The real worker asks (dynalite), the real webhook answers a signed `held`.
 */
import { describe, expect, it } from 'vitest';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, chatCommand } from '../worker/questions.js';

const bench = benchResetEachTest();

describe('/autopilot held: a held question', () => {
  it('shows when it expires unanswered, in the time format of its next look', async () => {
    // Asked at 10:00 on Monday the 23rd; the bench policy's maxDeferHours is 72.
    await askQuestion(bench, 'trg_hq1', 'hq-asked-1');
    const shown = await chatCommand(bench, 'held');
    expect(shown).toMatch(/hq-asked-1 .*ask, expires 2026-11-26T10:00Z +2026-11-23T11:00Z/);
  });

  it('shows no expiry for a wait that is no question', async () => {
    bench.clock.now = new Date('2026-11-23T20:00:00Z');
    await bench.send({ triggerId: 'trg_hq2', phaseId: 'ph_1', requestId: 'hq-window-1' });
    await bench.run(bench.worker(), await bench.receive());
    const shown = await chatCommand(bench, 'held');
    expect(shown).toMatch(/hq-window-1 .*window +2026-11-24T09:00Z/);
    expect(shown).not.toMatch(/hq-window-1 [^\\]*expires/);
  });
});
