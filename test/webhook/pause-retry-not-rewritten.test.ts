/**
 * A Slack retry of `pause`/`resume` (`X-Slack-Retry-Num`, same body) must not write its switch
 * again once its first delivery wrote it: another person's switch may have come in between. A
 * retried `resume` then un-paused automation that a release manager had just paused (an
 * incident), and told the channel "<@U> resumed console-autopilot" a second time. Against dynalite.
 */
import { expect, it } from 'vitest';
import { readPause } from '../../src/state/pause.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const { table } = emulatorsForFile();

/** The webhook's clock, and Slack's (its timestamps are whole seconds). */
let nowMs = Date.parse('2026-11-23T10:00:00Z');
const RETRY = { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' };

async function post(app: ReturnType<typeof buildApp>['app'], body: string, retry = false) {
  const res = await app.request(
    signedRequest('/slack/commands', body, {
      timestamp: Math.floor(nowMs / 1000),
      ...(retry ? { extraHeaders: RETRY } : {}),
    }),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as { text: string; response_type?: string };
}

it('a retried resume does not undo a pause written after its first delivery', async () => {
  const { app } = buildApp({ table, now: () => nowMs });
  const resume = commandBody({ text: 'resume', userId: 'U0ADMIN', triggerId: 'resume.1' });

  // The admin resumes; the answer reached Slack late, so Slack will retry it.
  await post(app, resume);
  expect((await readPause(table)).paused).toBe(false);

  // Ten seconds later, the on-call pauses: an incident.
  nowMs += 10_000;
  await post(app, commandBody({ text: 'pause incident 4711', userId: 'U0OPS', triggerId: 'pause.1' }));
  expect(await readPause(table)).toMatchObject({ paused: true, by: 'slack:U0OPS' });

  // Slack's retry of the admin's resume (same body, re-signed a minute later).
  nowMs += 50_000;
  const retried = await post(app, resume, true);

  // The pause stands: the resume was done once, by its first delivery.
  expect(await readPause(table)).toMatchObject({ paused: true, by: 'slack:U0OPS', reason: 'incident 4711' });
  // And the channel is not told a second time that automation was resumed.
  expect(retried.response_type).not.toBe('in_channel');
});
