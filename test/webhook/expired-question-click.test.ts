/**
 * An Approve click in the minute between a question's expiry (`requestedAt` + maxDeferHours) and
 * the tick that announces it used to be taken: the message said "approved … queued, the outcome
 * follows", the question was marked answered, and the worker then denied the copy as expired. A
 * click on a question past its own expiry is refused at once, saying so, and nothing is queued.
 * The real webhook (signed requests, the injected clock) on the emulators.
 */
import { describe, expect, it } from 'vitest';
import { readHeld } from '../../src/state/held.js';
import { readVeto } from '../../src/state/veto.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, clickAt, repliesAt } from '../worker/questions.js';

const bench = benchResetEachTest();

let clicks = 0;
/** U0ADMIN clicks at `at`, replied at a path of its own: the click's outcome and replies. */
async function click(actionId: string, value: string, at: string) {
  const path = `/actions/T0001/expired-${++clicks}/click`;
  const outcome = await clickAt(bench, actionId, value, Date.parse(at), path);
  return { outcome, replies: repliesAt(bench, path) };
}

describe('a click on a question past its expiry, before the tick announces it', () => {
  it('refuses an Approve as expired and queues nothing', async () => {
    // Asked at 10:00 on the 23rd: it expires 72 hours later, at 10:00 on the 26th.
    const value = await askQuestion(bench, 'trg_ex1', 'ex-asked-1');
    const approve = await click(APPROVE_ACTION_ID, value, '2026-11-26T10:00:30Z');
    expect(approve.outcome).toBe('question_expired');
    expect(approve.replies).toContain('expired');
    expect(approve.replies).not.toContain('approved');
    expect((await bench.receive()).Records).toEqual([]);
    // Not marked answered: `held` does not say an approval is on its way.
    expect((await readHeld(bench.table, 'ex-asked-1'))?.answeredBy).toBeUndefined();
  });

  it('still takes a Deny: its veto keeps automation from asking for the change again', async () => {
    const value = await askQuestion(bench, 'trg_ex2', 'ex-asked-2');
    const deny = await click(DENY_ACTION_ID, value, '2026-11-26T10:00:30Z');
    expect(deny.outcome).not.toBe('question_expired');
    expect(await readVeto(bench.table, 'approve_phase#trg_ex2#ph_1')).toMatchObject({ by: 'slack:U0ADMIN' });
    expect((await bench.receive()).Records).toEqual([]);
  });

  it('still takes an Approve at the last instant before expiry', async () => {
    const value = await askQuestion(bench, 'trg_ex3', 'ex-asked-3');
    expect((await click(APPROVE_ACTION_ID, value, '2026-11-26T10:00:00Z')).outcome).toBe('queued');
  });
});
