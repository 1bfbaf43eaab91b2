/**
 * `/autopilot why <id>`'s heading was bold as a whole (`*request …, asked by <requester>*`) with the
 * requester only escaped: a CI requester id is the sender's free text, and a `*` in it ended the
 * bold early and bolded the rest, our words included. The heading now shows the ids it holds (the
 * request's, the target, the requester) each in a code span of its own, as the stale summary does
 * (src/slack/mrkdwn.ts `inlineCode`): nothing in them can format the line.
 *
 * The request goes through the real worker (fauxqs, dynalite, the sandbox over HTTP); `why` is
 * asked through the real webhook with a signed Slack request at the bench's time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRequestAudit } from '../../src/state/audit.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { type Bench, startBench } from '../worker/fixture.js';
import { questionWebhook } from '../worker/questions.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});

async function whyHeading(requestId: string): Promise<{ heading: string; text: string }> {
  const at = bench.clock.now.getTime();
  const { app } = questionWebhook(bench, {
    now: () => at,
    audit: { read: (id: string) => readRequestAudit(bench.table, id) },
  });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text: `why ${requestId}`, userId: 'U0READER' }), {
      timestamp: Math.floor(at / 1000),
    }),
  );
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { text: string; blocks: Array<{ text?: { text?: string } }> };
  return { heading: reply.blocks[0]?.text?.text ?? '', text: reply.text };
}

it("shows a requester id's `*` in a code span, where it cannot end the heading's bold", async () => {
  await bench.send({
    triggerId: 'trg_why',
    phaseId: 'ph_1',
    requestId: 'why-star',
    requestedBy: { source: 'ci', id: 'deploy*.yml *approved by the release manager' },
  });
  expect(await bench.run(bench.worker(), await bench.receive())).toEqual({ batchItemFailures: [] });

  const { heading, text } = await whyHeading('why-star');
  expect(heading).toBe(
    '*Request* `why-star`: approve_phase `trigger trg_why phase ph_1`, asked by `ci:deploy*.yml *approved by the release manager`',
  );
  // Outside its code spans the heading holds no `*` but its own pair.
  expect(heading.replace(/`[^`]*`/g, '')).toBe('*Request* : approve_phase , asked by ');
  expect(text).toContain('asked by ci:deploy*.yml');
});

it('shows the id of a request with no record in a code span too', async () => {
  const { heading } = await whyHeading('no_such_request');
  expect(heading).toBe(
    '*Request* `no_such_request`: no audit record (unknown id, not yet picked up, or older than 90 days)',
  );
});
