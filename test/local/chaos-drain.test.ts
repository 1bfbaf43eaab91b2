/**
 * The chaos run's drain deadline (src/local/chaos-drain.ts). A quiet run failed "the queue did not
 * drain in time" at 150 s with every check passing: two messages were still waiting out the
 * worker's own 429 back-off. The deadline must never come before a message first delivered at
 * that time could rightly leave the queue by the worker's schedule (src/worker/defer.ts).
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  chaosMessageLifeMs,
  drainDeadline,
  firstDeliveries,
  longestMessageLifeMs,
} from '../../src/local/chaos-drain.js';
import { CHAOS_RATE_LIMIT_BASE_SECONDS } from '../../src/local/chaos-worker.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { rateLimitBackoffSeconds } from '../../src/worker/defer.js';

/** The chaos run's defaults: an 8-s function timeout, a 9-s visibility, the sandbox's 1-s Retry-After. */
const lifeMs = chaosMessageLifeMs(8_000, 9, 1);

describe('the chaos drain deadline', () => {
  it('outlasts a message refused 429 on every receive, each back-off at the top of its jitter', () => {
    // Each receive runs up to the timeout, then waits its back-off (the last one before the DLQ too).
    let waitedMs = 0;
    for (let receive = 1; receive <= MAX_RECEIVE_COUNT; receive++)
      waitedMs +=
        8_000 +
        1000 * rateLimitBackoffSeconds(undefined, receive, () => 0.9999, CHAOS_RATE_LIMIT_BASE_SECONDS);
    expect(lifeMs).toBeGreaterThanOrEqual(waitedMs);
    // The fixed 150-s deadline it replaces came before such a message, first delivered 10 s in, left.
    expect(10_000 + waitedMs).toBeGreaterThan(150_000);
    const deadline = drainDeadline({
      drainStartedAt: 0,
      backlogAllowanceMs: 150_000,
      lastFirstDeliveryAt: 10_000,
      messageLifeMs: lifeMs,
    });
    expect(deadline).toBeGreaterThanOrEqual(10_000 + waitedMs);
    expect(deadline).toBeGreaterThan(150_000);
  });

  it('counts a lease held by another copy or a dead invocation, and the visibility timeout', () => {
    const schedule = {
      maxReceiveCount: 2,
      functionTimeoutMs: 8_000,
      visibilityTimeoutSeconds: 9,
      lockMarginMs: 15_000,
      rateLimitBaseSeconds: 0.25,
    };
    // Both receives wait a lease (8 s + 15 s), longer than the visibility and the back-off.
    expect(longestMessageLifeMs(schedule)).toBe(2 * (8_000 + 23_000));
    expect(longestMessageLifeMs({ ...schedule, visibilityTimeoutSeconds: 60 })).toBe(2 * (8_000 + 60_000));
  });

  it("keeps the backlog's allowance until a message is delivered late, then follows the last first delivery", () => {
    const base = { drainStartedAt: 1_000, backlogAllowanceMs: 150_000, messageLifeMs: 200_000 };
    expect(drainDeadline({ ...base, lastFirstDeliveryAt: undefined })).toBe(151_000);
    expect(drainDeadline({ ...base, lastFirstDeliveryAt: 1_000 })).toBe(201_000);
    expect(drainDeadline({ ...base, lastFirstDeliveryAt: 90_000 })).toBe(290_000);
    // A short schedule leaves the allowance as it was.
    expect(drainDeadline({ ...base, messageLifeMs: 10_000, lastFirstDeliveryAt: 1_000 })).toBe(151_000);
  });

  it('notes the time of each message first delivered, not of its redeliveries', async () => {
    let now = 5_000;
    const seen: string[] = [];
    const noted = firstDeliveries(
      async (event) => {
        seen.push(...event.Records.map((r) => r.messageId));
      },
      () => now,
    );
    const event = (...ids: string[]) => ({ Records: ids.map((messageId) => ({ messageId })) }) as SQSEvent;
    const context = {} as Context;
    expect(noted.lastFirstDeliveryAt()).toBeUndefined();
    await noted.handler(event('m1', 'm2'), context);
    expect(noted.lastFirstDeliveryAt()).toBe(5_000);
    now = 9_000;
    await noted.handler(event('m1'), context); // a redelivery
    expect(noted.lastFirstDeliveryAt()).toBe(5_000);
    now = 12_000;
    await noted.handler(event('m2', 'm3'), context);
    expect(noted.lastFirstDeliveryAt()).toBe(12_000);
    expect(seen).toEqual(['m1', 'm2', 'm1', 'm2', 'm3']);
  });
});
