/**
 * `status` while only the queue depth (SQS) is slow: the deadline's rejection used to win the race
 * and the member read "the state table is slow", though the pause item had answered. The depth
 * now gives up a little before the deadline and shows as unknown.
 */
import { describe, expect, it } from 'vitest';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);

describe('status with a slow queue depth', () => {
  it('shows the pause state (answered) with the queue depth unknown, not "the state table is slow"', async () => {
    const { app, requestLines } = buildApp({
      now: () => NOW,
      deadlineMs: 100,
      pause: {
        read: async () => ({ paused: true, by: 'slack:U0OPS', reason: 'incident 42' }),
        write: async () => undefined,
      },
      // SQS GetQueueAttributes hanging (or retried past 2.5 s)
      queueDepth: () => new Promise<number | undefined>(() => undefined),
    });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'status', userId: 'U0READER' }), {
        timestamp: NOW / 1000,
      }),
    );
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { text: string; blocks?: unknown[] };
    expect(reply.text).not.toMatch(/state table is slow/);
    expect(reply.text).toBe('console-autopilot is paused');
    expect(JSON.stringify(reply.blocks)).toContain('unknown');
    expect(requestLines().at(-1)!.outcome).toBe('ok');
  });
});
