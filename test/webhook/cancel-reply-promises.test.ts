/**
 * What `/autopilot cancel` promises is what happens: the worker tells a cancel's end to the
 * requester's Slack reply address while it lives (30 minutes from its issue, on an origin the
 * worker posts to) and to the notifications channel when the deployment has one. A deployment
 * without a channel, a requester without a live reply address: the reply must not say they are
 * told. The real webhook, tick and worker on the emulators, on an injected clock.
 */
import { beforeEach, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { readFinal } from '../../src/state/audit.js';
import { releaseHeld } from '../../src/worker/release.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';
import { questionWebhook, releaseDeps } from '../worker/questions.js';

const bench = benchForFile();
const EVENING = new Date('2026-11-23T20:00:00Z'); // outside the CI window: held until 09:00

/** The bench's policy without a notifications channel (and the worker has no channel secret). */
const noChannel = () => {
  const { notifications: _none, ...rest } = basePolicy(bench.slack.origin);
  return rest;
};

beforeEach(async () => {
  bench.clock.now = EVENING;
  await bench.purge();
});

/** A CI request held by the window; `reply`: the Slack reply address it carries, issued now. */
async function heldCi(requestId: string, triggerId: string, reply?: string) {
  const template = bench.api.sandbox.state.triggers.get('trg_1');
  bench.api.sandbox.state.triggers.set(triggerId, {
    ...structuredClone(template!),
    id: triggerId,
    actions: [],
  });
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestId,
    ...(reply ? { reply: { slackResponseUrl: reply, issuedAt: bench.clock.now.toISOString() } } : {}),
  });
  await bench.run(bench.worker({ policy: noChannel() }), await bench.receive());
}

/** U0ADMIN's `/autopilot cancel`, at `at`; the reply's text. */
async function cancel(requestId: string, at: Date): Promise<string> {
  const { app } = questionWebhook(bench, { policy: parsePolicy(noChannel()), now: () => at.getTime() });
  const res = await app.request(
    signedRequest(
      '/slack/commands',
      commandBody({ text: `cancel ${requestId} not tonight`, userId: 'U0ADMIN' }),
      {
        timestamp: Math.floor(at.getTime() / 1000),
      },
    ),
  );
  expect(res.status).toBe(200);
  return JSON.stringify(await res.json());
}

/** The tick a minute later and the worker: the request ends as cancelled. Slack's posts about it. */
async function ended(requestId: string, at: Date) {
  const before = bench.slack.posts.length;
  bench.clock.now = at;
  await releaseHeld(releaseDeps(bench), at);
  await bench.run(bench.worker({ policy: noChannel() }), await bench.receive());
  expect(await readFinal(bench.table, requestId)).toMatchObject({ result: 'cancelled' });
  return bench.slack.posts.slice(before).filter((p) => JSON.stringify(p.body).includes(requestId));
}

it('without a channel or a reply address, the reply promises neither; nobody is posted to', async () => {
  await heldCi('promise-1', 'trg_pr1');
  const reply = await cancel('promise-1', new Date(EVENING.getTime() + 60_000));
  expect(reply).toContain('is *cancelled*');
  expect(reply).not.toContain('The requester and the channel are told');
  expect(reply).not.toMatch(/requester (is|are) told/i);
  // The channel's URL is the worker's secret: a channel is named only as the worker's, if it has one.
  expect(reply).not.toMatch(/channel (is|are) told within a minute[;.]/);
  expect(reply).toContain('if the worker has one');
  expect(await ended('promise-1', new Date(EVENING.getTime() + 120_000))).toEqual([]);
});

it('a reply address that will have expired is not promised a post', async () => {
  await heldCi('promise-2', 'trg_pr2', bench.slack.url('/commands/T0001/2'));
  // 40 minutes on: Slack no longer takes posts to the address (30 minutes).
  const reply = await cancel('promise-2', new Date(EVENING.getTime() + 40 * 60_000));
  expect(reply).not.toMatch(/requester (and the channel )?(is|are) told/i);
  expect(await ended('promise-2', new Date(EVENING.getTime() + 41 * 60_000))).toEqual([]);
});

it('a live reply address is promised the post, and gets it', async () => {
  await heldCi('promise-3', 'trg_pr3', bench.slack.url('/commands/T0001/3'));
  const reply = await cancel('promise-3', new Date(EVENING.getTime() + 60_000));
  expect(reply).toMatch(/requester is told within a minute/);
  const posts = await ended('promise-3', new Date(EVENING.getTime() + 120_000));
  expect(posts.map((p) => p.path)).toEqual(['/commands/T0001/3']);
});
