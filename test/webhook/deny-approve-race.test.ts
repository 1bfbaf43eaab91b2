/**
 * A Deny click racing an Approve click. The Deny looks at the question (open), writes its veto,
 * then looks again. When the Approve marks the question answered between the two looks, the
 * second look says so, but its answer was ignored: the Deny replaced the question with "*denied*
 * by U0REL. Automation will not do it." while U0ADMIN's approved copy was queued and approved
 * the phase anyway (a person's request is not stopped by a veto). The module header of
 * src/state/held-answer.ts promises the opposite: a Deny racing an Approve is told the question
 * is answered. The real webhook (signed requests), the real worker, on the emulators.
 */
import { describe, expect, it } from 'vitest';
import { writeVeto } from '../../src/state/veto.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, clickAsApprover, twoApproversPolicy } from '../worker/questions.js';

const bench = benchResetEachTest();
const policy = () => twoApproversPolicy(bench);

const click = (actionId: string, value: string, userId: string, overrides: Partial<WebhookDeps> = {}) =>
  clickAsApprover(bench, actionId, value, userId, { overrides });

describe('a Deny click racing an Approve click', () => {
  it('is not shown as a denial when the Approve answered the question between its look and its veto', async () => {
    const value = await askQuestion(bench, 'trg_dr1', 'dr-asked-1');
    let approve: Awaited<ReturnType<typeof click>> | undefined;
    const deny = await click(DENY_ACTION_ID, value, 'U0REL', {
      // U0ADMIN's Approve lands after the Deny's first look, before its veto is written.
      writeVeto: async (key, veto) => {
        approve = await click(APPROVE_ACTION_ID, value, 'U0ADMIN');
        return writeVeto(bench.table, key, veto);
      },
    });
    expect(approve?.outcome).toBe('queued');

    // The approved copy goes ahead: the phase is approved.
    await bench.run(bench.worker({ policy: policy() }), await bench.receive());
    expect(bench.approvals('trg_dr1')).toBe(1);

    // So the Deny must not claim the change was denied, nor replace the question with a denial.
    expect(deny.outcome).not.toBe('denied');
    const said = deny.replies.join('');
    expect(said).not.toContain('*denied*');
    expect(said).not.toContain('"replace_original":true');
  });
});
