/**
 * The webhook kept any http(s) `response_url` as the queued request's reply address and told the
 * person "the worker posts the outcome here", but the worker posts only to Slack's origin and the
 * origins in `SLACK_REPLY_ORIGINS` (`isAllowedSlackUrl`): for any other URL the promised outcome
 * never came. The webhook now keeps a reply address by the worker's own rule, from the same list,
 * and otherwise says where the outcome shows. The real webhook and the real worker on the bench
 * (fauxqs, dynalite, the Console API sandbox, Slack's stand-in), both given the one origin list.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { replyOriginsFromEnv } from '../../src/slack/post.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { questionWebhook } from '../worker/questions.js';

const bench = benchResetEachTest();
/** `SLACK_REPLY_ORIGINS` as both functions read it: Slack's stand-in only. */
let origins: string[];
beforeAll(async () => {
  origins = replyOriginsFromEnv(bench.slack.origin);
});
beforeEach(async () => {
  bench.logs.length = 0;
  bench.slack.posts.length = 0;
});

/** `/ops approve <trigger> ph_1` with `responseUrl`; what the person was told and what was queued. */
async function approveFromSlack(triggerId: string, responseUrl: string) {
  const { app } = questionWebhook(bench, { now: () => bench.clock.now.getTime(), replyOrigins: origins });
  const res = await app.request(
    signedRequest(
      '/slack/commands',
      commandBody({ text: `approve ${triggerId} ph_1`, responseUrl, command: '/ops' }),
      { timestamp: Math.floor(bench.clock.now.getTime() / 1000) },
    ),
  );
  expect(res.status).toBe(200);
  const reply = (await res.json()) as { text: string; blocks?: unknown[] };
  return { said: `${reply.text} ${JSON.stringify(reply.blocks ?? [])}` };
}

/** The worker, with the same origins, decides what the webhook queued. */
async function runWorker() {
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  const queued = JSON.parse(event.Records[0]!.body) as Record<string, unknown>;
  const worker = bench.worker({ slack: { allowedOrigins: origins } });
  expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
  return queued;
}

describe('a response_url the worker would not post to', () => {
  for (const [why, url] of [
    ['another host', 'https://hooks.slack.com.evil.example/commands/T0001/1/ro1'],
    ['plain http to Slack', 'http://hooks.slack.com/commands/T0001/1/ro2'],
    ['credentials in the URL', 'https://user:pw@hooks.slack.com/commands/T0001/1/ro3'],
  ] as const) {
    it(`is not promised the outcome (${why}): the reply says where it shows`, async () => {
      const { said } = await approveFromSlack('trg_1', url);
      const queued = await runWorker();
      const requestId = queued.requestId as string;
      expect(queued).not.toHaveProperty('reply');
      expect(said).toContain('Queued');
      expect(said).not.toMatch(/will be posted here|posts the outcome here/);
      expect(said).toContain(`/ops why ${requestId}`);
      // The worker posts to the channel only (when it tells it): nothing was due to the URL.
      expect(bench.slack.posts.filter((p) => p.path !== '/services/channel')).toEqual([]);
      expect(bench.logs.some((l) => l.message === 'reply not delivered')).toBe(false);
    });
  }

  it('is promised, and gets, the outcome when the URL is on the shared list', async () => {
    const path = '/commands/T0001/1/ro4';
    const { said } = await approveFromSlack('trg_1', bench.slack.url(path));
    const queued = await runWorker();
    expect(queued).toHaveProperty('reply.slackResponseUrl', bench.slack.url(path));
    expect(said).toContain('the worker posts the outcome here if it comes within 30 minutes');
    expect(bench.slack.posts.filter((p) => p.path === path)).toHaveLength(1);
  });
});
