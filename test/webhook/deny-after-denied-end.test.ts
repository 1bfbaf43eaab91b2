/**
 * A Deny clicked on a question the worker already ended as denied (by an earlier person's Deny:
 * the release tick's next look, then the worker's denial by the veto). The question's held item is
 * gone, and the click was told "This question is no longer open (it was answered, cancelled or has
 * expired)": true, but it left out the one thing the person needed, that it was denied, and by
 * whom. It is now told so from our own records (the request's final and its audit record of the
 * veto), the person named as a Slack mention. The real webhook (signed requests), the release tick
 * and the worker on the emulators.
 */
import { expect, it } from 'vitest';
import { readFinal, readRequestAudit } from '../../src/state/audit.js';
import { DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from '../worker/fixture.js';
import { askQuestion, clickAsApprover, releaseDeps, twoApproversPolicy } from '../worker/questions.js';

const bench = benchForFile();
const policy = () => twoApproversPolicy(bench);

/** `userId` clicks Deny on the question `value` at the bench's time, through the real webhook. */
const deny = (value: string, userId: string) =>
  clickAsApprover(bench, DENY_ACTION_ID, value, userId, {
    overrides: { audit: { read: (requestId) => readRequestAudit(bench.table, requestId) } },
  });

it('a Deny on a question the worker ended as denied is told it was already denied, and by whom', async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  const id = 'dd-asked-1';
  const value = await askQuestion(bench, 'trg_dd1', id);
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  expect((await deny(value, 'U0REL')).outcome).toBe('denied');
  // The tick's next look ends the question by the veto.
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  await bench.run(bench.worker({ policy: policy() }), await bench.receive());
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'denied', rule: 'veto' });

  bench.clock.now = new Date('2026-11-23T10:07:00Z');
  const late = await deny(value, 'U0ADMIN');
  expect(late.outcome).toBe('question_denied');
  expect(late.replies).toHaveLength(1);
  const said = late.replies[0] ?? '';
  // The person as a mention in the message, by their id in its plain fallback; only to the clicker.
  expect(said).toContain('already denied by <@U0REL>');
  expect(said).toContain('"text":"This question was already denied by U0REL; nothing was done."');
  expect(said).toContain('"replace_original":false');
  expect(said).not.toContain('no longer open');
});
