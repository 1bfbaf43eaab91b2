/**
 * A question open across the deploy of the digest effect keys (ids holding '#' took them): its
 * first Deny, clicked before the deploy, is on record under the change's former key; a second
 * person's Deny after it wrote a veto under the current key and was told "denied by" them, and the
 * worker then ended the request crediting that second person in the channel and the audit trail.
 * The first Deny wins across the deploy too: the second is told whose it is and nothing is written.
 * Only where the former key is no key written today: a Deny on a dry run of another change whose
 * key reads the same is not this question's, and a Deny on this one is still recorded.
 * The real webhook (signed requests), the release tick and the worker on the emulators.
 */
import { expect, it } from 'vitest';
import { effectKey } from '../../src/actions/request.js';
import { dryRunVetoKey } from '../../src/policy/veto-key.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld, readHeld } from '../../src/state/held.js';
import { readVeto, writeVeto } from '../../src/state/veto.js';
import { DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest, channelPostsAbout, copyTrigger } from '../worker/fixture.js';
import {
  askQuestion,
  clickAsApprover,
  questionValue,
  releaseDeps,
  twoApproversPolicy,
} from '../worker/questions.js';

const bench = benchResetEachTest();
const policy = () => twoApproversPolicy(bench);

/** `userId` clicks Deny on the question `value` at the bench's time, through the real webhook. */
const deny = (value: string, userId: string) => clickAsApprover(bench, DENY_ACTION_ID, value, userId);

const asked = (triggerId: string, phaseId: string) =>
  effectKey({
    version: 1,
    action: 'approve_phase',
    triggerId,
    phaseId,
    requestedBy: { source: 'schedule', id: 'nightly' },
    requestedAt: '2026-11-23T10:00:00.000Z',
  });

it('a Deny after the deploy on a question denied before it credits the first Deny, under the former key', async () => {
  const id = 'fd-asked-1';
  const value = await askQuestion(bench, 'rel#2026', id);
  // U0REL's Deny, written by the previous version under the key the change had then.
  const formerKey = 'approve_phase#rel#2026#ph_1';
  expect(asked('rel#2026', 'ph_1')).not.toBe(formerKey);
  await writeVeto(bench.table, formerKey, { by: 'slack:U0REL', at: new Date('2026-11-23T10:02:00Z') });

  // The deploy; then U0ADMIN clicks Deny on the same question before the tick's next look.
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  const second = await deny(value, 'U0ADMIN');

  expect(second.outcome).toBe('question_denied');
  const said = second.replies.join('');
  expect(said).toContain('already denied');
  expect(said).toContain('U0REL');
  expect(said).not.toContain('denied* by <@U0ADMIN>');
  expect(await readVeto(bench.table, asked('rel#2026', 'ph_1'))).toBeUndefined();

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

it("a Deny on a dry run of another change, under this question's former key, does not take this Deny's place", async () => {
  // Phase "ph_1#dry-run" of trigger rel: its former key is that of a Deny on a dry run of rel's ph_1.
  const id = 'fd-asked-2';
  copyTrigger(bench, 'rel');
  await bench.send({
    triggerId: 'rel',
    phaseId: 'ph_1#dry-run',
    requestId: id,
    requestedBy: { source: 'schedule', id: 'nightly' },
  });
  await bench.run(bench.worker(), await bench.receive());
  expect((await listHeld(bench.table)).find((h) => h.requestId === id)?.why).toBe('ask');
  const value = questionValue(bench, id);
  await writeVeto(bench.table, dryRunVetoKey(asked('rel', 'ph_1')), {
    by: 'slack:U0REL',
    at: new Date('2026-11-23T10:02:00Z'),
  });

  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  const denied = await deny(value, 'U0ADMIN');

  expect(denied.outcome).toBe('denied');
  expect(await readVeto(bench.table, asked('rel', 'ph_1#dry-run'))).toEqual({
    by: 'slack:U0ADMIN',
    at: '2026-11-23T10:05:00.000Z',
  });
});
