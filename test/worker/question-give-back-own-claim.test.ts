/**
 * A question's claim is given back only by the copy that holds it. A copy whose post of the
 * Approve/Deny question fails gives its claim back so that a retry asks; when that post was slow
 * (Slack timing out) and its claim ran out meanwhile, another copy of the message (SQS delivers
 * it again after its visibility timeout) may have claimed the question and asked it. The slow
 * copy's give-back used to delete whatever was there, that copy's claim or its mark that the
 * question was asked, so a third copy asked again: two questions in the channel for one request.
 * The real worker on the emulators; the slow post is the first copy's Slack sender, which lets
 * the second copy run (the clock moved past the first one's lease) before it fails.
 */
import { expect, it } from 'vitest';
import type { HttpSend } from '../../src/http/send.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { benchForFile, onReceive, VISIBILITY_MS } from './fixture.js';
import { questionsAbout, sendAskingRequest } from './questions.js';

const bench = benchForFile();

it('a copy whose question post failed after its claim ran out leaves the question another copy asked asked', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z');
  await bench.purge();
  const id = 'ask-give-back-1';
  const before = bench.slack.posts.length;
  await sendAskingRequest(bench, 'trg_agb1', id);
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);

  // The first copy's question post hangs past its lease; meanwhile the second copy asks; then it fails.
  let second: Awaited<ReturnType<typeof bench.run>> | undefined;
  const slowThenFails: HttpSend = async (request) => {
    if (request.body?.includes(APPROVE_ACTION_ID) && !second) {
      bench.clock.now = new Date(bench.clock.now.getTime() + VISIBILITY_MS);
      second = await bench.run(bench.worker(), onReceive(event, 2));
      throw Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    }
    throw new Error(`unexpected post to ${request.url}`);
  };
  const first = await bench.run(
    bench.worker({ slack: { allowedOrigins: [bench.slack.origin], send: slowThenFails } }),
    onReceive(event, 1),
  );
  expect(first.batchItemFailures).toHaveLength(1);
  expect(second?.batchItemFailures).toEqual([]);
  expect(questionsAbout(bench, id, before)).toHaveLength(1);

  // The first copy's retry, and a later look: the question was asked already.
  bench.clock.now = new Date(bench.clock.now.getTime() + VISIBILITY_MS);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);

  const asked = questionsAbout(bench, id, before);
  expect(asked, asked.join('\n')).toHaveLength(1);
  expect(bench.approvals('trg_agb1')).toBe(0);
});
