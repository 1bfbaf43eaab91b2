/**
 * An Approve click's copy that was itself held (automation paused before the worker took it):
 * it used to check only its own held item, so a cancel of the question ("it will not be done")
 * did not stop it after resume. It checks the question's held item too, or the question's end.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { type ReleaseDeps, releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from './fixture.js';
import { askQuestion, chatCommand, clickApprove, releaseDeps } from './questions.js';

const bench = benchResetEachTest();
let tick: ReleaseDeps;

beforeAll(() => {
  tick = releaseDeps(bench);
});

describe('an asked request whose approved copy is held by a pause', () => {
  it('is never executed after `/autopilot cancel` of the question told the canceller it will not be done', async () => {
    const worker = bench.worker();
    const value = await askQuestion(bench, 'trg_rd1', 'rd-asked-1');
    const copyId = await clickApprove(bench, value);
    // Automation is paused before the worker takes the copy: the copy is held by the pause.
    await writePause(bench.table, {
      paused: true,
      by: 'slack:U0ADMIN',
      reason: 'incident',
      at: bench.clock.now,
    });
    await bench.run(worker, await bench.receive());
    expect((await listHeld(bench.table)).find((h) => h.requestId === copyId)?.why).toBe('paused');
    expect(bench.approvals('trg_rd1')).toBe(0);
    // The person cancels the question (the id the CI gate and the question's message show).
    expect(await chatCommand(bench, 'cancel rd-asked-1 wrong build')).toContain(
      '*cancelled*: it will not be done',
    );
    // The tick sends the cancelled question to the worker, which ends it.
    bench.clock.now = new Date('2026-11-23T10:01:00Z');
    await releaseHeld(tick, bench.clock.now);
    await bench.run(worker, await bench.receive());
    expect(await outcomeNow(bench.table, 'rd-asked-1')).toMatchObject({ result: 'cancelled' });
    // Resume: the tick releases the held copy.
    await writePause(bench.table, {
      paused: false,
      by: 'slack:U0ADMIN',
      at: new Date('2026-11-23T10:05:00Z'),
    });
    bench.clock.now = new Date('2026-11-23T10:06:00Z');
    await releaseHeld(tick, bench.clock.now);
    const event = await bench.receive();
    if (event.Records.length > 0) await bench.run(worker, event);
    expect(bench.approvals('trg_rd1')).toBe(0);
  });
});
