/**
 * `/autopilot status` reads the pause switch from the state table. A read still running at the
 * deadline (DynamoDB or the path to it hanging) was answered "the state table is slow" under
 * outcome `slow`, which the webhook does not count; StateTableUnreachable's catalogue entry says a
 * `status` read not confirmed by the deadline is counted as `state_unconfirmed`, and the
 * WebhookStateUnreachable alarm reads that count. A table that hangs left `status` failing for
 * everyone with nothing counted.
 */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { emittedMetrics } from '../infra/alarm-reading.js';
import { buildApp } from '../webhook/harness.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');

describe('status on a state table that does not answer by the deadline', () => {
  it('is counted under StateTableUnreachable as state_unconfirmed', async () => {
    const metricLines: string[] = [];
    const { app, requestLines } = buildApp({
      now: () => T0,
      deadlineMs: 30,
      metrics: createMetrics({ service: 'webhook', now: () => T0, sink: (line) => metricLines.push(line) }),
      pause: {
        read: () => new Promise(() => undefined),
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
    expect(JSON.stringify(await res.json())).toContain('state table is slow');
    expect(requestLines().at(-1)).toMatchObject({ outcome: 'state_unconfirmed' });
    const counted = emittedMetrics(metricLines).filter((m) => m.name === 'StateTableUnreachable');
    expect(counted.map((m) => m.value)).toEqual([1]);
  });
});
