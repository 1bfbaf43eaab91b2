/**
 * A Deny click looks at the held question at once (so the next tick ends it by the veto), then
 * writes the veto: the look is also its gate (refused once an Approve answered the question). A
 * release tick landing between the two sent the question back before the veto existed; the
 * worker asked again and held it for another hour, so the Deny took an hour to end it. The click
 * now looks again once the veto is written.
 */
import { describe, expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { writeVeto } from '../../src/state/veto.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, clickDeny, releaseDeps } from '../worker/questions.js';

const bench = benchResetEachTest();

describe('a Deny click', () => {
  it('ends the question by the next tick even when a tick held it again between its look and its veto', async () => {
    const value = await askQuestion(bench, 'trg_dn1', 'dn-asked-1');
    const tick = releaseDeps(bench);
    await clickDeny(bench, value, {
      // The tick and the worker run between the click's look and its veto.
      writeVeto: async (key, veto) => {
        expect((await releaseHeld(tick, bench.clock.now)).released).toContain('dn-asked-1');
        await bench.run(bench.worker(), await bench.receive());
        return writeVeto(bench.table, key, veto);
      },
    });
    // The next tick, a minute later, sends it back and the worker ends it by the veto.
    bench.clock.now = new Date('2026-11-23T10:01:30Z');
    expect((await releaseHeld(tick, bench.clock.now)).released).toContain('dn-asked-1');
    await bench.run(bench.worker(), await bench.receive());
    expect(await readFinal(bench.table, 'dn-asked-1')).toMatchObject({ result: 'denied', rule: 'veto' });
  });
});
