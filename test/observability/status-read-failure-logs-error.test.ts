/**
 * WebhookStateUnreachable's runbook (and README's) sends on-call to the webhook's request lines
 * with outcome `state_unreachable`, whose `error` "names the cause" (AccessDenied: the role's
 * grants; ResourceNotFound: the table). A failed `/autopilot status` read wrote that outcome but
 * dropped the error, and logged the line at info: on-call found the failing requests and no cause.
 */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');

describe('status on a state table the webhook may not read', () => {
  it("logs the table's error on the request line the runbook finds", async () => {
    const denied = Object.assign(new Error('User is not authorized to perform: dynamodb:GetItem'), {
      name: 'AccessDeniedException',
    });
    const { app, requestLines } = buildApp({
      now: () => T0,
      metrics: createMetrics({ service: 'webhook', now: () => T0, sink: () => undefined }),
      pause: {
        read: async () => {
          throw denied;
        },
        write: async () => {
          throw new Error('not written in this test');
        },
      },
      queueDepth: async () => 0,
    });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'status' }), { timestamp: Math.floor(T0 / 1000) }),
    );
    expect(res.status).toBe(200);
    const line = requestLines().at(-1);
    expect(line).toMatchObject({ outcome: 'state_unreachable', command: 'status' });
    expect(line?.error).toMatchObject({ name: 'AccessDeniedException' });
    expect(line?.level).not.toBe('info');
  });
});
