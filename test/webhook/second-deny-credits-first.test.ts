/**
 * Two people click Deny on the same question before the worker's next check ends it. The veto
 * item was written by an unconditional put: the second Deny replaced the first person's name and
 * time, its author was told (and the question's message replaced with) "denied by" them, and the
 * worker then ended the request crediting the second person in the channel and the audit trail,
 * though the first Deny is the one that vetoed it. Now the first Deny's veto stays: the second is
 * answered, to its author only, that the question was already denied by the first, and nothing is
 * written. The real webhook (signed requests), the release tick and the worker on the emulators.
 */
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { readHeld } from '../../src/state/held.js';
import { readVeto } from '../../src/state/veto.js';
import { DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest, channelPostsAbout } from '../worker/fixture.js';
import { askQuestion, clickAsApprover, releaseDeps, twoApproversPolicy } from '../worker/questions.js';

const bench = benchResetEachTest();
const policy = () => twoApproversPolicy(bench);

/** `userId` clicks Deny on the question `value` at the bench's time, through the real webhook. */
const deny = (value: string, userId: string) => clickAsApprover(bench, DENY_ACTION_ID, value, userId);

it('a second Deny before the check ends the question leaves the first Deny credited, and is told who denied it', async () => {
  const id = 'sd-asked-1';
  const value = await askQuestion(bench, 'trg_sd1', id);
  const vetoKey = 'approve_phase#trg_sd1#ph_1'; // the asked request's effect

  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  const first = await deny(value, 'U0REL');
  expect(first.outcome).toBe('denied');
  bench.clock.now = new Date('2026-11-23T10:05:20Z');
  const second = await deny(value, 'U0ADMIN');

  // The first Deny's veto stays as written.
  expect(await readVeto(bench.table, vetoKey)).toEqual({ by: 'slack:U0REL', at: '2026-11-23T10:05:00.000Z' });
  // The second person is told, to them only, that U0REL denied it; the "denied by U0REL" message stays.
  expect(second.outcome).toBe('question_denied');
  const said = second.replies.join('');
  expect(said).toContain('already denied');
  expect(said).toContain('U0REL');
  expect(said).not.toContain('"replace_original":true');
  expect(said).not.toContain('denied* by <@U0ADMIN>');

  // The tick's next look ends the question by the veto: the channel and the audit credit U0REL.
  const from = bench.slack.posts.length;
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  await bench.run(bench.worker({ policy: policy() }), await bench.receive());
  expect(await readHeld(bench.table, id)).toBeUndefined();
  const final = await readFinal(bench.table, id);
  expect(final).toMatchObject({ result: 'denied', rule: 'veto' });
  expect(final?.reason).toContain('slack:U0REL denied');
  expect(final?.reason).not.toContain('U0ADMIN');
  const told = channelPostsAbout(bench, id, from);
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('U0REL');
  expect(told[0]).not.toContain('U0ADMIN');
});
