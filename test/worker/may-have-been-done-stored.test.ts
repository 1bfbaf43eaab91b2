/**
 * Whether a request's end "may have been done" (an attempt whose answer was lost may have made the
 * change) is stored with its final, and what people read follows that field: the `enqueue --wait`
 * gate's exit 5 ("may have been done: check") and the ⚠ headline of a refusal. It was recognised by
 * matching the reason's words, so rewording a reason would have turned exit 5 back into exit 3
 * ("refused") and ⚠ back into ✗. Here the words and the field disagree on purpose: the field wins.
 *
 * Each final is written as a copy that died before telling it leaves it; a redelivered copy then
 * finds it untold and tells it (the worker's real path), and the gate reads it from the table.
 */
import { expect, it } from 'vitest';
import { requestOwner } from '../../src/actions/request.js';
import { outcomeNow } from '../../src/cli/wait.js';
import { type FinalOutcome, readFinal, recordFinal } from '../../src/state/audit.js';
import { withMayHaveReached } from '../../src/worker/replies.js';
import { type Bench, benchForFile, channelPostsAbout } from './fixture.js';

const bench = benchForFile();

const requestedBy = { source: 'ci', id: 'github-actions/deploy.yml' } as const;

/** A request's final as a copy that died before telling it wrote it; then a copy of it is told. */
async function storedThenTold(b: Bench, requestId: string, triggerId: string, end: Partial<FinalOutcome>) {
  const request = {
    version: 1 as const,
    action: 'approve_phase' as const,
    triggerId,
    phaseId: 'ph_1',
    requestedBy,
    requestedAt: b.clock.now.toISOString(),
    requestId,
  };
  const final = {
    result: 'rejected',
    rule: 'release CI approves',
    requestId,
    at: b.clock.now.toISOString(),
    reason: 'the Console API answered 409',
    ...end,
  } as FinalOutcome;
  expect(await recordFinal(b.table, final, b.clock.now, requestOwner(request))).toBe(true);
  const from = b.slack.posts.length;
  await b.send({ triggerId, phaseId: 'ph_1', requestId });
  expect(await b.run(b.worker(), await b.receive())).toEqual({ batchItemFailures: [] });
  const told = channelPostsAbout(b, requestId, from);
  expect(told).toHaveLength(1);
  return { told: told[0] as string, gate: await outcomeNow(b.table, requestId) };
}

it('a refusal stored as "may have been done" is told ⚠ and gates exit 5, whatever its words', async () => {
  const { told, gate } = await storedThenTold(bench, 'stored-maybe-409', 'trg_1', {
    reason: 'already approved (worded some other way)',
    mayHaveBeenDone: true,
  });
  expect(told).toContain('but an earlier attempt may have done it');
  expect(told).not.toContain(':x: The Console API refused');
  expect(gate).toMatchObject({ exitCode: 5, result: 'rejected' });
  // The field is what the final keeps; a copy telling it does not lose it.
  expect(await readFinal(bench.table, 'stored-maybe-409')).toMatchObject({ mayHaveBeenDone: true });
});

it('a refusal stored as not done is told ✗ and gates exit 3, even if its words sound otherwise', async () => {
  const { told, gate } = await storedThenTold(bench, 'stored-not-409', 'trg_2', {
    reason: withMayHaveReached('the Console API answered 409'),
    mayHaveBeenDone: false,
  });
  expect(told).toContain(':x: The Console API refused');
  expect(gate).toMatchObject({ exitCode: 3, result: 'rejected' });
});

it('a stale end stored as "may have been done" gates exit 5 without the words that used to say so', async () => {
  const { gate } = await storedThenTold(bench, 'stored-maybe-stale', 'trg_3', {
    result: 'stale',
    reason: 'stale request: not the current phase',
    mayHaveBeenDone: true,
  });
  expect(gate).toMatchObject({ exitCode: 5, result: 'stale' });
});

it('a final written before the field existed is still read by its words', async () => {
  const { told, gate } = await storedThenTold(bench, 'stored-legacy-409', 'trg_4', {
    reason: withMayHaveReached('the Console API answered 409'),
  });
  expect(told).toContain('but an earlier attempt may have done it');
  expect(gate).toMatchObject({ exitCode: 5 });
});
