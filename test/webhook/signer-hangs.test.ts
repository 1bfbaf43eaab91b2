/**
 * A requester signer that does not answer (the read of its key's secret hanging) held the send
 * past the webhook's deadline, and the person was told the queue "did not confirm" the request in
 * time: it "may or may not be queued", although nothing had been sent, and a click's question
 * stayed answered. A deadline that passes before the send started is now a request not queued
 * (`signing_failed`), and the send is never started afterwards, even when the signer answers
 * late: "not queued" stays true. The signer moves the injected clock past the deadline when it is
 * asked, so nothing waits in real time; the queue is fauxqs, its sends counted as they leave.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createRequesterSigner, type RequesterSigner } from '../../src/actions/proof.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  signedRequest,
} from '../helpers/slack-requests.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, questionWebhook } from '../worker/questions.js';
import { drainQueue } from './queue-helpers.js';

const bench = benchResetEachTest();

/** The webhook's 2.5 s budget, counted from arrival (WebhookDeps.deadlineMs). */
const DEADLINE_MS = 2_500;

/**
 * The deployed signer over keys that arrive only when `answer()` is called: asked, it moves the
 * bench's clock just past the webhook's deadline (`startedAt`) and waits.
 */
function hangingSigner(startedAt: number) {
  let answer: () => void = () => {};
  const keysRead = new Promise<void>((resolve) => {
    answer = resolve;
  });
  const signer: RequesterSigner = createRequesterSigner(async () => {
    bench.clock.now = new Date(startedAt + DEADLINE_MS + 1);
    await keysRead;
    return bench.requesterKeys;
  });
  return { signer, answer: () => answer() };
}

/** fauxqs, with every SendMessage counted as it leaves (one started late would show here). */
function countedSqs() {
  const sends: unknown[] = [];
  const sqs = {
    send: (command: Parameters<SQSClient['send']>[0]) => {
      sends.push(command.input);
      return bench.queue.sqs.send(command);
    },
  } as Pick<SQSClient, 'send'>;
  return { sqs, sends };
}

/** Lets the late signer's continuation run (it is a chain of resolved promises, no timer). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

const at = () => ({ timestamp: Math.floor(bench.clock.now.getTime() / 1000) });

describe('a requester signer that does not answer by the deadline', () => {
  it('is told as not queued (nothing was sent), never "may or may not be queued", and is not sent later', async () => {
    const hung = hangingSigner(bench.clock.now.getTime());
    const counted = countedSqs();
    const { app, requestLines } = questionWebhook(bench, {
      ...counted,
      signer: hung.signer,
      now: () => bench.clock.now.getTime(),
    });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'approve trg_sh1 ph_1' }), at()),
    );
    expect(res.status).toBe(200);
    const said = JSON.stringify(await res.json());
    expect(said).toContain('was *not* queued');
    expect(said).not.toMatch(/may or may not|did not confirm/);
    expect(requestLines().at(-1)).toMatchObject({
      level: 'error',
      outcome: 'signing_failed',
      error: { name: 'RequesterSignerError' },
    });
    // The key arrives after the answer: the request is not sent after all.
    hung.answer();
    await settle();
    await settle();
    expect(counted.sends).toEqual([]);
    expect(await drainQueue(bench.queue.sqs, bench.queue.queueUrl)).toEqual([]);
  });

  it('answers an Approve click the same way: not queued, and not sent when the key arrives late', async () => {
    const value = await askQuestion(bench, 'trg_sh2', 'sh-asked-2');
    const hung = hangingSigner(bench.clock.now.getTime());
    const counted = countedSqs();
    const { app, requestLines } = questionWebhook(bench, {
      ...counted,
      signer: hung.signer,
      now: () => bench.clock.now.getTime(),
    });
    const payload = blockActionsPayload({
      actionId: APPROVE_ACTION_ID,
      value,
      userId: 'U0ADMIN',
      responseUrl: bench.slack.url('/actions/T0001/1/sh2'),
    });
    const res = await app.request(signedRequest('/slack/interactions', interactionBody(payload), at()));
    expect(res.status).toBe(200);
    expect(requestLines().at(-1)).toMatchObject({ level: 'error', outcome: 'signing_failed' });
    hung.answer();
    await settle();
    await settle();
    expect(counted.sends).toEqual([]);
    expect((await bench.receive(10, 0)).Records).toEqual([]);
  });
});
