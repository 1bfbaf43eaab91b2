/**
 * The fault test: 500 requests against a sandbox answering 20 % of mutations with 5xx, 10 %
 * with 429 and leaving 5 % hanging, driven the way the event source mapping drives the worker
 * (three concurrent pollers, a 2 s visibility timeout, failed records reappear, maxReceiveCount
 * 5 → DLQ). The sandbox has 12 triggers of 4 phases, so the requests are duplicates by design:
 * ~10 distinct requests per (trigger, phase), a tenth of them sent twice with the same request
 * id, in rough phase order so that both approvals and stale phases happen.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { drive } from '../helpers/lambda.js';
import { basePolicy, benchForFile } from './fixture.js';

const bench = benchForFile({
  emulators: { visibilityTimeoutSeconds: 2, maxReceiveCount: 5 },
  sandbox: {
    faults: { errorRate: 0.2, rateLimitRate: 0.1, retryAfterSeconds: 1, hangRate: 0.05, only: 'mutations' },
  },
  client: { timeoutMs: 400, maxRetries: 1 },
  // Hung attempts, redeliveries and effect locks: the worker's clock must move.
  clock: 'running',
});

const FIRST_HAND = new Set(['approved', 'stale', 'denied', 'rejected']);

it('ends every one of 500 requests exactly once under 5xx, 429 and hangs, and never approves a phase twice', async () => {
  const t0 = Date.now();
  const requestIds: string[] = [];
  const poison: string[] = [];
  const sends: Array<() => Promise<unknown>> = [];
  for (let i = 0; sends.length < 500; i++) {
    if (i % 25 === 7) {
      const body = JSON.stringify({ version: 1, action: 'approve_phase', poison: i });
      poison.push(body);
      sends.push(() =>
        bench.queue.sqs.send(new SendMessageCommand({ QueueUrl: bench.queue.queueUrl, MessageBody: body })),
      );
      continue;
    }
    const requestId = `fault-${i}`;
    const request = {
      triggerId: `trg_${(i % 11) + 1}`,
      phaseId: `ph_${Math.min(4, Math.floor(i / 120) + 1)}`,
      requestId,
      ...(i % 25 === 3 ? { requestedBy: { source: 'ci' as const, id: 'blocked' } } : {}),
    };
    requestIds.push(requestId);
    sends.push(() => bench.send(request));
    // A tenth of the requests twice, with the same request id: a producer's retry.
    if (i % 10 === 0 && sends.length < 500) sends.push(() => bench.send(request));
  }
  // Sent in order, a few at a time: phases are requested roughly in pipeline order.
  for (let i = 0; i < sends.length; i += 10) await Promise.all(sends.slice(i, i + 10).map((send) => send()));
  // No audit channel here: this test is about endings, and 500 posts would only slow it down.
  const policy = { ...basePolicy(bench.slack.origin), notifications: {} };
  // The queue's time is compressed (2 s visibility, not 360 s): so is the 429 back-off (15 s, 1 min,
  // 4 min in the stack, which no short Retry-After shortens): 1, 1, 4, 16 s here.
  const worker = bench.worker({
    policy,
    lockMarginMs: 500,
    safetyMarginMs: 500,
    concurrency: 10,
    rateLimitBaseSeconds: 0.25,
  });
  const stats = await drive(bench.queue, worker, {
    pollers: 3,
    batchSize: 10,
    timeoutMs: 2_000,
    maxMs: 120_000,
  });

  // What ended up in the DLQ (poison at once; exhausted retries by redrive).
  const dlqBodies: string[] = [];
  for (let round = 0; round < 100; round++) {
    const out = await bench.queue.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: bench.emulators.dlqUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 60,
      }),
    );
    if (!out.Messages?.length) break;
    dlqBodies.push(...out.Messages.map((m) => m.Body ?? ''));
  }
  for (const body of poison) expect(dlqBodies.filter((b) => b === body)).toHaveLength(1);
  const inDlq = new Set(
    dlqBodies.flatMap((b) => {
      try {
        const id = (JSON.parse(b) as { requestId?: string }).requestId;
        return id ? [id] : [];
      } catch {
        return [];
      }
    }),
  );

  const ends = new Map<string, string[]>();
  for (const line of bench.logs) {
    if (!line.requestId || !line.result || line.result === 'dead-lettered') continue;
    ends.set(line.requestId, [...(ends.get(line.requestId) ?? []), line.result]);
  }
  const tally: Record<string, number> = {};
  for (const requestId of requestIds) {
    const results = ends.get(requestId) ?? [];
    const firstHand = results.filter((r) => FIRST_HAND.has(r));
    const end =
      firstHand.length === 1
        ? firstHand[0]!
        : results.length > 0 && firstHand.length === 0
          ? 'replayed'
          : 'none';
    // Exactly one first-hand end; or the effect was done by another request and this one was
    // told so; or it is in the DLQ. Extra copies only ever replay.
    expect(firstHand.length, `${requestId}: ${results.join(',')}`).toBeLessThanOrEqual(1);
    expect(
      results.every((r) => FIRST_HAND.has(r) || r === 'replayed'),
      `${requestId}: ${results.join(',')}`,
    ).toBe(true);
    const key = results.length > 0 ? end : inDlq.has(requestId) ? 'dlq' : 'none';
    expect(key, requestId).not.toBe('none');
    tally[key] = (tally[key] ?? 0) + 1;
  }

  // The sandbox never approved a phase twice, and every approval we report happened.
  const approved200 = bench.api.sandbox.requests.filter(
    (r) => r.method === 'PUT' && r.path.endsWith('/approve') && r.status === 200,
  );
  const phases = approved200.map((r) => `${r.path}#${(r.body as { phaseID?: string }).phaseID}`);
  expect(new Set(phases).size).toBe(phases.length);
  for (const trigger of bench.api.sandbox.state.triggers.values()) {
    const ids = trigger.actions.map((a) => a.phaseID);
    expect(new Set(ids).size, trigger.id).toBe(ids.length);
  }
  expect(tally.approved ?? 0).toBeLessThanOrEqual(approved200.length);
  expect(tally.approved ?? 0).toBeGreaterThan(0);
  expect(tally.stale ?? 0).toBeGreaterThan(0);
  expect(tally.denied ?? 0).toBeGreaterThan(0);
  // The faults really happened.
  const statuses = bench.api.sandbox.requests.map((r) => r.status);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  expect(statuses.filter((s) => s >= 500).length).toBeGreaterThan(0);
  console.info(
    'fault test',
    JSON.stringify({
      ...tally,
      apiCalls: statuses.length,
      approved200: approved200.length,
      ms: Date.now() - t0,
      ...stats,
    }),
  );
}, 120_000);
