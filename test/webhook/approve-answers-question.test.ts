/**
 * A question answered with Approve is answered: the asked request stays held until the worker
 * runs the approved copy, and the question used to stay open all that time. A second click
 * then counted too: a Deny by someone else replaced "approved by U0ADMIN" with "*denied* by
 * U0REL. Automation will not do it." while the phase was approved anyway (the audit then said
 * the approval "overrides the earlier Deny"), and a second Approve queued a second copy. The
 * real webhook (signed requests) and the real worker, on the emulators and the sandbox.
 */
import { describe, expect, it } from 'vitest';
import { heldRows } from '../../src/cli/held.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { readVeto } from '../../src/state/veto.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { answerHeld, heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, clickAsApprover, twoApproversPolicy } from '../worker/questions.js';

const bench = benchResetEachTest();

/** Two people may approve phases. */
const policy = () => twoApproversPolicy(bench);

/** `userId` clicks `actionId` on the question's message: the request's log line and what it posted. */
const click = (actionId: string, value: string, userId: string, retry = false, sqs = bench.queue.sqs) =>
  clickAsApprover(bench, actionId, value, userId, { retry, overrides: { sqs } });

describe('a question answered with Approve', () => {
  it('takes no second answer while the approved copy waits: neither a Deny nor another Approve', async () => {
    const value = await askQuestion(bench, 'trg_rc1', 'rc-asked-1');
    const clickedAt = bench.clock.now.toISOString().replace(/:\d\d\.\d{3}Z$/, 'Z');
    expect((await click(APPROVE_ACTION_ID, value, 'U0ADMIN')).outcome).toBe('queued');
    // `held`, in the CLI and in chat, says the question is answered and its copy on its way; the
    // CLI says when, too (a chat cell is too narrow).
    const answered = 'ask: approved by U0ADMIN, on its way';
    expect(heldRows(await listHeld(bench.table)).find((row) => row[0] === 'rc-asked-1')?.[4]).toBe(
      `ask: approved by U0ADMIN at ${clickedAt}, on its way`,
    );
    const now = () => bench.clock.now.getTime();
    const chat = await answerHeld(
      { held: heldAccess(bench.table) } as WebhookDeps,
      undefined,
      '/autopilot',
      now() + 2_000,
      now,
    );
    expect(JSON.stringify(chat.reply)).toContain(answered);

    const deny = await click(DENY_ACTION_ID, value, 'U0REL');
    expect(deny.outcome).toBe('question_answered');
    expect(deny.replies.join('')).not.toContain('denied');
    expect(deny.replies.join('')).toContain('already answered: U0ADMIN approved it');
    expect(await readVeto(bench.table, 'approve_phase#trg_rc1#ph_1')).toBeUndefined();

    const second = await click(APPROVE_ACTION_ID, value, 'U0REL');
    expect(second.outcome).toBe('question_answered');
    // A Slack retry of the first click is still recognised as that click.
    expect((await click(APPROVE_ACTION_ID, value, 'U0ADMIN', true)).outcome).toBe('retry_ignored');

    const event = await bench.receive();
    expect(event.Records.map((r) => JSON.parse(r.body).requestId)).toEqual([
      'rc-asked-1:approved-by:U0ADMIN',
    ]);
    await bench.run(bench.worker({ policy: policy() }), event);
    expect(bench.approvals('trg_rc1')).toBe(1);
    const final = await readFinal(bench.table, 'rc-asked-1:approved-by:U0ADMIN');
    expect(final?.result).toBe('approved');
    expect(final?.reason).not.toContain('Deny');
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('rc-asked-1');
  });

  it('takes one of two Approve clicks racing each other', async () => {
    const value = await askQuestion(bench, 'trg_rc3', 'rc-asked-3');
    const outcomes = await Promise.all([
      click(APPROVE_ACTION_ID, value, 'U0ADMIN'),
      click(APPROVE_ACTION_ID, value, 'U0REL'),
    ]);
    // The loser read the question open and lost the write, or read it answered already.
    const [first, second] = outcomes.map((o) => o.outcome).sort();
    expect([first, second]).toEqual([expect.stringMatching(/^question_(answered|closed)$/), 'queued']);
    expect((await bench.receive()).Records).toHaveLength(1);
  });

  it('is open again when the approved copy never reached the queue', async () => {
    const value = await askQuestion(bench, 'trg_rc4', 'rc-asked-4');
    const down = {
      send: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    } as unknown as typeof bench.queue.sqs;
    expect((await click(APPROVE_ACTION_ID, value, 'U0ADMIN', false, down)).outcome).toBe('queue_unreachable');
    expect((await click(APPROVE_ACTION_ID, value, 'U0REL')).outcome).toBe('queued');
  });

  it('still lets a person approve after a Deny, as documented', async () => {
    const value = await askQuestion(bench, 'trg_rc2', 'rc-asked-2');
    expect((await click(DENY_ACTION_ID, value, 'U0REL')).outcome).toBe('denied');
    expect((await click(APPROVE_ACTION_ID, value, 'U0ADMIN')).outcome).toBe('queued');
    await bench.run(bench.worker({ policy: policy() }), await bench.receive());
    expect(bench.approvals('trg_rc2')).toBe(1);
  });
});
