/**
 * Slack's three seconds run from when the request reached API Gateway, not from when the handler
 * started: on a cold start the init came first. The webhook counts its deadline (and its latency)
 * from the request context's `timeEpoch`, as hono/aws-lambda binds it, unless that time is in the
 * future or implausibly old.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');

/** A signed `/autopilot help` with the Lambda bindings hono/aws-lambda passes for an HTTP API event. */
async function latencyOf(requestContext: Record<string, unknown> | undefined): Promise<unknown> {
  const { app, requestLines } = buildApp({ now: () => NOW });
  const request = signedRequest('/slack/commands', commandBody({ text: 'help' }), {
    timestamp: Math.floor(NOW / 1000),
  });
  const res = await app.fetch(request, requestContext ? { event: {}, requestContext } : undefined);
  expect(res.status).toBe(200);
  return requestLines()[0]?.latencyMs;
}

describe('the webhook counts from the request arriving', () => {
  it("takes API Gateway's arrival time (HTTP API timeEpoch, REST requestTimeEpoch)", async () => {
    expect(await latencyOf({ timeEpoch: NOW - 1_800 })).toBe(1_800);
    expect(await latencyOf({ requestTimeEpoch: NOW - 700 })).toBe(700);
  });

  it('believes no arrival in the future, implausibly old, or missing', async () => {
    expect(await latencyOf({ timeEpoch: NOW + 5_000 })).toBe(0);
    expect(await latencyOf({ timeEpoch: NOW - 31_000 })).toBe(0);
    expect(await latencyOf({ timeEpoch: 'soon' })).toBe(0);
    expect(await latencyOf(undefined)).toBe(0);
  });

  it('gives up on a slow queue by the deadline from arrival, not from when the handler started', async () => {
    // Arrived 2.45 s ago (a slow cold start): 50 ms are left, and the queue answers in 500 ms.
    const slowQueue = {
      send: () => new Promise((resolve) => setTimeout(() => resolve({ MessageId: 'm-late' }), 500)),
    } as unknown as Pick<SQSClient, 'send'>;
    const { app } = buildApp({ now: () => NOW, sqs: slowQueue });
    const request = signedRequest('/slack/commands', commandBody({ text: 'approve trg_1 ph_1' }), {
      timestamp: Math.floor(NOW / 1000),
    });
    const res = await app.fetch(request, { event: {}, requestContext: { timeEpoch: NOW - 2_450 } });
    expect(res.status).toBe(200);
    // Counted from the handler's start it would have waited 2.5 s, and answered "Queued".
    expect(((await res.json()) as { text: string }).text).toContain('did not confirm');
  });
});
