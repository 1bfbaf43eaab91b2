/**
 * "Queued … the worker posts the outcome here" holds only when the command came with a usable
 * `response_url`: without one (missing, not a URL) the request carries no reply address and the
 * worker has nowhere in the conversation to post, so the person waited for an answer that could
 * not come. The reply now says where the outcome can be seen instead: `why <request id>`, and the
 * notifications channel when one is set up. Real signed requests, the queue on fauxqs.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';
import { drainQueue } from './queue-helpers.js';

const { emu, table } = emulatorsForFile();
beforeEach(async () => {
  await drainQueue(emu.sqs, emu.queueUrl);
});

/** `/autopilot <text>` with `response_url` as given; the reply's text and blocks as one string, and what was queued. */
async function command(text: string, responseUrl: string, retry = false) {
  const { app } = buildApp({ sqs: emu.sqs, queueUrl: emu.queueUrl, table });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text, responseUrl, command: '/ops' }), {
      ...(retry ? { extraHeaders: { 'x-slack-retry-num': '1' } } : {}),
    }),
  );
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { text: string; blocks?: unknown[] };
  const [message, ...more] = await drainQueue(emu.sqs, emu.queueUrl, 2);
  expect(more).toEqual([]);
  return { said: `${reply.text} ${JSON.stringify(reply.blocks ?? [])}`, queued: message!.body };
}

describe('a mutation queued without a usable response_url', () => {
  for (const [why, url] of [
    ['none', ''],
    ['not a URL', 'not a url'],
    ['not http(s)', 'javascript:alert(1)'],
  ] as const) {
    it(`does not promise a post in the conversation (${why}), and says where the outcome shows`, async () => {
      const { said, queued } = await command('approve trg_nr1 ph_1', url);
      const requestId = queued.requestId as string;
      expect(queued).not.toHaveProperty('reply');
      expect(said).toContain('Queued');
      expect(said).toContain(requestId);
      expect(said).not.toMatch(/will be posted here|posts the outcome here/);
      expect(said).toContain(`/ops why ${requestId}`);
      expect(said).toContain('notifications channel');
    });
  }

  it('says the same when it is queued on Slack’s retry', async () => {
    const { said, queued } = await command('archive cfg_nr2', '', true);
    expect(queued).not.toHaveProperty('reply');
    expect(said).toContain('queued now');
    expect(said).not.toMatch(/will be posted here|posts the outcome here/);
    expect(said).toContain(`/ops why ${queued.requestId as string}`);
  });

  it('still promises the post when the command came with its response_url', async () => {
    const { said, queued } = await command(
      'approve trg_nr3 ph_1',
      'https://hooks.slack.com/commands/T0001/1/x',
    );
    expect(queued).toHaveProperty('reply.slackResponseUrl');
    expect(said).toContain('the worker posts the outcome here if it comes within 30 minutes');
  });
});
