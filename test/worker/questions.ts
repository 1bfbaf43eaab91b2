/**
 * Questions the worker asks and people answer, for the tests of held questions: the worker asks
 * about a request (a `schedule:` requester: the bench policy asks a human), U0ADMIN clicks
 * Approve or types `/autopilot cancel` through the real webhook, and the release tick runs.
 */
import { expect } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { postToSlack } from '../../src/slack/post.js';
import { listHeld } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { APPROVE_ACTION_ID, DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import type { ReleaseDeps } from '../../src/worker/release.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  signedRequest,
} from '../helpers/slack-requests.js';
import { buildApp, type HarnessOptions } from '../webhook/harness.js';
import { type Bench, basePolicy, channelPostsAbout, copyTrigger } from './fixture.js';

/** The release tick's dependencies on the bench. */
export function releaseDeps(bench: Bench): ReleaseDeps {
  return {
    table: bench.table,
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    logger: createLogger({ service: 'release', sink: () => {} }),
    signer: createRequesterSigner(async () => bench.requesterKeys),
  };
}

/** Sends a request the bench policy asks a human about (a `schedule:` requester) on `triggerId`, a fresh copy of trg_1. */
export async function sendAskingRequest(bench: Bench, triggerId: string, requestId: string): Promise<void> {
  copyTrigger(bench, triggerId);
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestId,
    requestedBy: { source: 'schedule', id: 'nightly' },
  });
}

/** The worker asks about `requestId` on a fresh copy of trg_1; the Approve button's value. */
export async function askQuestion(bench: Bench, triggerId: string, requestId: string): Promise<string> {
  await sendAskingRequest(bench, triggerId, requestId);
  await bench.run(bench.worker(), await bench.receive());
  expect((await listHeld(bench.table)).find((h) => h.requestId === requestId)?.why).toBe('ask');
  return questionValue(bench, requestId);
}

/** The Approve/Deny questions the channel got about `requestId` since post number `from`. */
export function questionsAbout(bench: Bench, requestId: string, from: number): string[] {
  return channelPostsAbout(bench, requestId, from).filter((body) => body.includes(APPROVE_ACTION_ID));
}

/** The Approve button's value (the asked request) of the last question posted about `requestId`. */
export function questionValue(bench: Bench, requestId: string): string {
  const question = bench.slack.posts.findLast((p) => JSON.stringify(p.body).includes(requestId));
  const blocks = (question?.body.blocks ?? []) as Array<{
    elements?: Array<{ action_id?: string; value?: string }>;
  }>;
  const value = blocks.flatMap((b) => b.elements ?? []).find((e) => e.action_id === APPROVE_ACTION_ID)?.value;
  expect(value).toBeDefined();
  return value as string;
}

/** The real webhook on the bench's queue and table (`overrides`: its clock, a dependency to wrap). */
export function questionWebhook(bench: Bench, overrides: HarnessOptions = {}) {
  return buildApp({
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    table: bench.table,
    held: heldAccess(bench.table),
    signer: createRequesterSigner(async () => bench.requesterKeys),
    postReply: (url, message) => postToSlack(url, message, { allowedOrigins: [bench.slack.origin] }),
    // The worker's list (fixture.ts): the replies it posts go to Slack's stand-in.
    replyOrigins: [bench.slack.origin],
    ...overrides,
  });
}

/** The bench policy under which two people may approve phases: U0ADMIN and U0REL. */
export function twoApproversPolicy(bench: Bench): PolicyInput {
  const input = basePolicy(bench.slack.origin);
  input.chat = { teams: ['T0001'], grants: { U0ADMIN: ['approve_phase'], U0REL: ['approve_phase'] } };
  return input;
}

let clicks = 0;
/**
 * `userId` clicks `actionId` on the question `value` at the bench's time, through the real webhook
 * under the two-approvers policy (`overrides` wrap its dependencies; `retry` sends the click as
 * Slack's retry). It must be taken (200): the request's outcome and what was replied to the clicker.
 */
export async function clickAsApprover(
  bench: Bench,
  actionId: string,
  value: string,
  userId: string,
  options: { overrides?: HarnessOptions; retry?: boolean } = {},
) {
  const { app, requestLines } = buildApp({
    policy: parsePolicy(twoApproversPolicy(bench)),
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    table: bench.table,
    held: heldAccess(bench.table),
    now: () => bench.clock.now.getTime(),
    signer: createRequesterSigner(async () => bench.requesterKeys),
    postReply: (url, message) => postToSlack(url, message, { allowedOrigins: [bench.slack.origin] }),
    ...options.overrides,
  });
  const path = `/actions/T0001/${++clicks}/click`;
  const payload = blockActionsPayload({ actionId, value, userId, responseUrl: bench.slack.url(path) });
  const res = await app.request(
    signedRequest('/slack/interactions', interactionBody(payload), {
      timestamp: Math.floor(bench.clock.now.getTime() / 1000),
      ...(options.retry ? { extraHeaders: { 'x-slack-retry-num': '1' } } : {}),
    }),
  );
  expect(res.status).toBe(200);
  const replies = bench.slack.posts.filter((p) => p.path === path).map((p) => JSON.stringify(p.body));
  return { outcome: requestLines().at(-1)?.outcome, replies };
}

/**
 * U0ADMIN clicks `actionId` on the question `value` (`overrides` wrap the webhook's dependencies),
 * at `at` (the bench's time by default), answered at `path`; it must be taken (200): the webhook's
 * line for the click. Clicks of Deny and Approve share it.
 */
async function adminClick(
  bench: Bench,
  actionId: string,
  value: string,
  options: { overrides?: HarnessOptions; at?: number; path?: string } = {},
) {
  const { overrides = {}, at, path = '/actions/T0001/1/click' } = options;
  // On the bench's clock, never the machine's: a question expires maxDeferHours after it was asked.
  const now = () => at ?? bench.clock.now.getTime();
  const { app, requestLines } = questionWebhook(bench, { now, ...overrides });
  const payload = blockActionsPayload({
    actionId,
    value,
    userId: 'U0ADMIN',
    responseUrl: bench.slack.url(path),
  });
  const res = await app.request(
    signedRequest('/slack/interactions', interactionBody(payload), {
      timestamp: Math.floor(now() / 1000),
    }),
  );
  expect(res.status).toBe(200);
  return requestLines().at(-1);
}

/** U0ADMIN clicks Deny on the bench's clock (`overrides` wrap the webhook's dependencies); it must be taken. */
export async function clickDeny(bench: Bench, value: string, overrides: HarnessOptions = {}): Promise<void> {
  expect((await adminClick(bench, DENY_ACTION_ID, value, { overrides }))?.outcome).toBe('denied');
}

/** U0ADMIN clicks Approve; the approved copy lands on the bench queue. Its request id. */
export async function clickApprove(bench: Bench, value: string): Promise<string> {
  const line = await adminClick(bench, APPROVE_ACTION_ID, value);
  expect(line?.outcome).toBe('queued');
  return line?.requestId as string;
}

/**
 * U0ADMIN clicks Approve on `value` at `at` (the webhook's clock), answered at `path`; it must be
 * taken (200): its outcome. Unlike clickAt, the webhook has the worker's reply origins, so the
 * approved copy's own reply reaches `path` too (tests of a click whose copy runs later read it).
 */
export async function approveAt(bench: Bench, value: string, at: number, path: string): Promise<unknown> {
  return (await adminClick(bench, APPROVE_ACTION_ID, value, { at, path }))?.outcome;
}

/**
 * U0ADMIN clicks `actionId` on the question `value` at `at` (the webhook's clock), with its
 * response URL at `path` on Slack's stand-in; the webhook is built without a reply-origin list.
 * The click must be taken (200); its outcome.
 */
export async function clickAt(
  bench: Bench,
  actionId: string,
  value: string,
  at: number,
  path: string,
): Promise<unknown> {
  const { app, requestLines } = buildApp({
    policy: parsePolicy(basePolicy(bench.slack.origin)), // maxDeferHours 72
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    table: bench.table,
    held: heldAccess(bench.table),
    now: () => at,
    signer: createRequesterSigner(async () => bench.requesterKeys),
    postReply: (url, message) => postToSlack(url, message, { allowedOrigins: [bench.slack.origin] }),
  });
  const payload = blockActionsPayload({
    actionId,
    value,
    userId: 'U0ADMIN',
    responseUrl: bench.slack.url(path),
  });
  const res = await app.request(
    signedRequest('/slack/interactions', interactionBody(payload), { timestamp: Math.floor(at / 1000) }),
  );
  expect(res.status).toBe(200);
  return requestLines().at(-1)?.outcome;
}

/** What was replied at `path` on Slack's stand-in, as JSON text. */
export function repliesAt(bench: Bench, path: string): string {
  return bench.slack.posts
    .filter((p) => p.path === path)
    .map((p) => JSON.stringify(p.body))
    .join('');
}

/** U0ADMIN types `/autopilot <text>`; the reply as JSON text. */
export async function chatCommand(bench: Bench, text: string): Promise<string> {
  const { app } = questionWebhook(bench, { now: () => bench.clock.now.getTime() });
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text, userId: 'U0ADMIN' }), {
      timestamp: Math.floor(bench.clock.now.getTime() / 1000),
    }),
  );
  return JSON.stringify(await res.json());
}
