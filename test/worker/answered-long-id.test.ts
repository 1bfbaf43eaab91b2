/**
 * A question whose id is long (over ~108 characters, 128 allowed): the Approve click names its
 * copy `sha-<hash>:approved-by:<user>`, from which the question's id cannot be read back. The
 * copy used to be tied to the question by its id alone: the question never ended, and a cancel
 * of it did not stop the copy. The copy now carries the question's id (`answers`).
 */
import { describe, expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { benchResetEachTest } from './fixture.js';
import { askQuestion, chatCommand, clickApprove } from './questions.js';

const bench = benchResetEachTest();

// 115 characters: valid (max 128), but with ":approved-by:U0ADMIN" past 128, so the copy's id is hashed.
const longId = (tag: string) => `rv-long-${tag}-`.padEnd(115, 'x');

describe('an asked request with a long id, answered with Approve', () => {
  it('ends with its answer (enqueue --wait on the asked id sees approved)', async () => {
    const asked = longId('a');
    const value = await askQuestion(bench, 'trg_rl1', asked);
    const copyId = await clickApprove(bench, value);
    expect(copyId.startsWith('sha-')).toBe(true);
    await bench.run(bench.worker(), await bench.receive());
    expect(bench.approvals('trg_rl1')).toBe(1);
    const state = await outcomeNow(bench.table, asked);
    expect(state, JSON.stringify(state)).toMatchObject({ exitCode: 0, result: 'approved' });
  });

  it('is never executed after `/autopilot cancel` told the canceller it will not be done', async () => {
    const asked = longId('b');
    const value = await askQuestion(bench, 'trg_rl2', asked);
    await clickApprove(bench, value);
    expect(await chatCommand(bench, `cancel ${asked} wrong build`)).toContain(
      '*cancelled*: it will not be done',
    );
    await bench.run(bench.worker(), await bench.receive());
    expect(bench.approvals('trg_rl2')).toBe(0);
  });
});
