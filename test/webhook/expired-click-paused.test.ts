/**
 * A click on a question past its expiry is refused with "It is closed as expired within a
 * minute". While automation is paused that is not so: the release tick sends nothing back while
 * paused, the worker holds even an expired request then (the pause comes before the expiry), and
 * the tick's new ending of stuck waits skips paused runs too: the question stays held, open in
 * `held`, until `/autopilot resume`. The person must not be promised an ending that is not coming.
 */
import { describe, expect, it } from 'vitest';
import { readHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, clickAt, releaseDeps, repliesAt } from '../worker/questions.js';

const bench = benchResetEachTest();

describe('an Approve click on an expired question while automation is paused', () => {
  it('does not promise that the question is closed within a minute', async () => {
    // Asked at 10:00 on the 23rd: it expires 72 hours later (basePolicy), at 10:00 on the 26th.
    const value = await askQuestion(bench, 'trg_px1', 'px-asked-1');
    await writePause(bench.table, { paused: true, by: 'slack:U0OPS', at: new Date('2026-11-25T09:00:00Z') });

    const at = Date.parse('2026-11-26T10:00:30Z');
    const path = '/actions/T0001/paused-expired/click';
    expect(await clickAt(bench, APPROVE_ACTION_ID, value, at, path)).toBe('question_expired');

    // What the tick really does in the following minutes: nothing; the question stays held.
    for (const minute of [1, 2, 30]) {
      bench.clock.now = new Date(at + minute * 60_000);
      await releaseHeld(releaseDeps(bench), bench.clock.now);
    }
    expect(await readHeld(bench.table, 'px-asked-1')).toBeDefined();

    const reply = repliesAt(bench, path);
    expect(reply).toContain('expired');
    expect(reply).not.toContain('within a minute');
  });
});
