/**
 * Slack takes posts to a `response_url` for 30 minutes, but a request can be held for hours (a
 * window, a pause, a daily limit, a question waiting for a person). The "Queued" reply to a slash
 * command said "The outcome will be posted here." and the Approve click's reply "The outcome
 * follows here." whatever happened next: a request held overnight ended in the channel only (the
 * worker knows the URL's age and does not try it), so the person waited in the conversation for a
 * post that could not come. The replies now promise "here" only within the URL's life and name
 * where a later outcome goes (the channel, `why <id>`). The real webhook, worker and release tick
 * on the bench (fauxqs, dynalite, the Console API sandbox, Slack's stand-in), on an injected clock.
 */
import { beforeEach, expect, it } from 'vitest';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  signedRequest,
} from '../helpers/slack-requests.js';
import { benchForFile } from '../worker/fixture.js';
import { askQuestion, questionWebhook, releaseDeps } from '../worker/questions.js';

const bench = benchForFile();
const EVENING = new Date('2026-11-23T20:00:00Z');
const RESUMED = new Date('2026-11-24T08:59:00Z');
const NEXT_MORNING = new Date('2026-11-24T09:00:30Z'); // the tick after the resume: 13 hours on

const webhook = () => questionWebhook(bench, { now: () => bench.clock.now.getTime() });
const worker = () => bench.worker();
const text = (body: unknown) => JSON.stringify(body);
/** Automation paused for the night: every request is held until the resume. */
const pause = () =>
  writePause(bench.table, { paused: true, by: 'slack:U0OPS', reason: 'incident', at: bench.clock.now });

beforeEach(async () => {
  bench.clock.now = EVENING;
  await writePause(bench.table, { paused: false, by: 'slack:U0OPS', at: EVENING });
  await bench.purge();
  bench.logs.length = 0;
  bench.slack.posts.length = 0;
});

/** A fresh copy of trg_1 to approve. */
function trigger(triggerId: string) {
  const template = bench.api.sandbox.state.triggers.get('trg_1');
  bench.api.sandbox.state.triggers.set(triggerId, {
    ...structuredClone(template!),
    id: triggerId,
    actions: [],
  });
}

/** The morning: resumed, the tick releases what the pause held and the worker ends it. Posts since. */
async function morning(requestId: string) {
  expect((await listHeld(bench.table)).map((h) => h.requestId)).toContain(requestId);
  const before = bench.slack.posts.length;
  await writePause(bench.table, { paused: false, by: 'slack:U0OPS', at: RESUMED });
  bench.clock.now = NEXT_MORNING;
  await releaseHeld(releaseDeps(bench), NEXT_MORNING);
  await bench.run(worker(), await bench.receive());
  return bench.slack.posts.slice(before);
}

it('a slash command held overnight by a pause: "Queued" promises here only within 30 minutes; the outcome reaches the channel', async () => {
  trigger('trg_life1');
  await pause();
  const replyPath = '/commands/T0001/life1';
  const res = await webhook().app.request(
    signedRequest(
      '/slack/commands',
      commandBody({ text: 'approve trg_life1 ph_1', responseUrl: bench.slack.url(replyPath) }),
      { timestamp: Math.floor(EVENING.getTime() / 1000) },
    ),
  );
  expect(res.status).toBe(200);
  const said = text(await res.json());
  const requestId = /Request id (slack-[0-9a-f]+)/.exec(said)?.[1] as string;
  expect(requestId).toBeDefined();

  // The worker holds it for the pause and says so while the reply address lives.
  await bench.run(worker(), await bench.receive());
  expect(bench.slack.posts.map((p) => p.path)).toContain(replyPath);

  const posts = await morning(requestId);
  expect(bench.approvals('trg_life1')).toBe(1);
  // 13 hours on, Slack would refuse the reply address: the worker does not try it ...
  expect(posts.filter((p) => p.path === replyPath)).toEqual([]);
  expect(bench.logs.filter((l) => l.message === 'reply not delivered')).toEqual([]);
  // ... and the outcome reaches the channel.
  const told = posts.filter((p) => p.path === '/services/channel' && text(p.body).includes(requestId));
  expect(told.map((p) => p.body.text)).toEqual([expect.stringContaining('Done')]);

  // So the "Queued" reply must not have promised it here, and must have said where it goes.
  expect(said).not.toContain('The outcome will be posted here.');
  expect(said).toContain('within 30 minutes');
  expect(said).toContain('notifications channel');
  expect(said).toContain(`/autopilot why ${requestId}`);
});

it('an Approve click whose copy is held overnight by a pause: the click reply promises here only within 30 minutes', async () => {
  const value = await askQuestion(bench, 'trg_life2', 'life-2');
  await pause();
  const clickPath = '/actions/T0001/life2/click';
  const { app, requestLines } = webhook();
  const payload = blockActionsPayload({
    actionId: APPROVE_ACTION_ID,
    value,
    userId: 'U0ADMIN',
    responseUrl: bench.slack.url(clickPath),
  });
  const res = await app.request(
    signedRequest('/slack/interactions', interactionBody(payload), {
      timestamp: Math.floor(EVENING.getTime() / 1000),
    }),
  );
  expect(res.status).toBe(200);
  expect(requestLines().at(-1)?.outcome).toBe('queued');
  const copyId = requestLines().at(-1)?.requestId as string;
  const clickReply = bench.slack.posts.filter((p) => p.path === clickPath).map((p) => text(p.body));
  expect(clickReply).toHaveLength(1);

  // The approved copy is held for the pause until the morning.
  await bench.run(worker(), await bench.receive());
  const posts = await morning(copyId);
  expect(bench.approvals('trg_life2')).toBe(1);
  expect(posts.filter((p) => p.path === clickPath)).toEqual([]);
  const told = posts.filter((p) => p.path === '/services/channel' && text(p.body).includes(copyId));
  expect(told.map((p) => p.body.text)).toEqual([expect.stringContaining('Done')]);

  expect(clickReply[0]).not.toContain('The outcome follows here.');
  expect(clickReply[0]).toContain('within 30 minutes');
  expect(clickReply[0]).toContain('notifications channel');
  expect(clickReply[0]).toContain(`why ${copyId}`);
});
