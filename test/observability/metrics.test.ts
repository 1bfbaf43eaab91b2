/**
 * Issue 15 items 1 and 6: metrics as EMF log lines, valid by the specification, emitted by the
 * real worker, sweeper and Console API client (no PutMetricData anywhere), each request's
 * lines carrying its request id as a property, never as a dimension.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import {
  consoleApiMetrics,
  createMetrics,
  METRIC_CATALOGUE,
  METRICS_NAMESPACE,
  type MetricName,
} from '../../src/observability/metrics.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { closedPortUrl } from '../console/helpers/scripted-server.js';
import {
  freshState,
  makeSweeper,
  memoryLogger,
  NOW,
  policyWith,
  type Rig,
  startRig,
} from '../sweeper/harness.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { emfProblems } from './emf.js';

type Line = Record<string, unknown> & {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
};

function capture() {
  const raw: string[] = [];
  let clock = Date.parse('2026-11-23T10:00:00Z');
  const metrics = createMetrics({ service: 'worker', sink: (line) => raw.push(line), now: () => clock });
  const lines = () => raw.map((line) => JSON.parse(line) as Line);
  const named = (name: MetricName) => lines().filter((line) => name in line);
  return { metrics, raw, lines, named, setClock: (ms: number) => (clock = ms) };
}

describe('an EMF line', () => {
  it('is valid by the specification for every metric in the catalogue', () => {
    const { metrics, raw, lines } = capture();
    for (const [name, { dimensions }] of Object.entries(METRIC_CATALOGUE)) {
      const values = Object.fromEntries(dimensions.map((d) => [d, `${d.toLowerCase()}-value`]));
      metrics.put(name as MetricName, 3, values as never, { requestId: 'req-1' });
    }
    expect(raw).toHaveLength(Object.keys(METRIC_CATALOGUE).length);
    for (const line of raw) expect(emfProblems(line), line).toEqual([]);
    const decisions = lines().find((l) => 'Decisions' in l) as Line;
    expect(decisions._aws.Timestamp).toBe(Date.parse('2026-11-23T10:00:00Z'));
    expect(decisions._aws.CloudWatchMetrics[0]).toEqual({
      Namespace: METRICS_NAMESPACE,
      Dimensions: [['Service', 'Action', 'Outcome']],
      Metrics: [{ Name: 'Decisions', Unit: 'Count' }],
    });
    // The request id is a property: searchable, but never a dimension (one metric per request would cost a fortune).
    expect(decisions.requestId).toBe('req-1');
    expect(decisions._aws.CloudWatchMetrics[0]?.Dimensions.flat()).not.toContain('requestId');
  });

  it('is checked for real: the checker refuses what the specification refuses', () => {
    const good = {
      _aws: {
        Timestamp: 1,
        CloudWatchMetrics: [
          { Namespace: 'N', Dimensions: [['Service']], Metrics: [{ Name: 'M', Unit: 'Count' }] },
        ],
      },
      Service: 'w',
      M: 1,
    };
    expect(emfProblems(JSON.stringify(good))).toEqual([]);
    const broken = (change: (doc: typeof good & Record<string, unknown>) => void) => {
      const doc = structuredClone(good) as typeof good & Record<string, unknown>;
      change(doc);
      return emfProblems(JSON.stringify(doc));
    };
    expect(broken((d) => delete (d as Record<string, unknown>).Service)).not.toEqual([]);
    expect(broken((d) => (d.M = 'one' as never))).not.toEqual([]);
    expect(
      broken(
        (d) =>
          ((d._aws.CloudWatchMetrics[0] as { Metrics: unknown[] }).Metrics[0] = {
            Name: 'M',
            Unit: 'Things',
          }),
      ),
    ).not.toEqual([]);
    expect(
      broken(
        (d) =>
          ((d._aws.CloudWatchMetrics[0] as { Metrics: unknown[] }).Metrics = Array.from(
            { length: 101 },
            (_, i) => ({ Name: `m${i}` }),
          )),
      ),
    ).not.toEqual([]);
    expect(
      broken(
        (d) => (d._aws.CloudWatchMetrics[0]!.Dimensions = [Array.from({ length: 31 }, () => 'Service')]),
      ),
    ).not.toEqual([]);
    expect(broken((d) => (d._aws.Timestamp = 1.5))).not.toEqual([]);
  });
});

describe('the worker', () => {
  const bench = benchResetEachTest(); // 10:00 on Monday, office hours (UTC)

  it('emits a decision per outcome, with the request id, and counts held requests, mutations and DLQ sends', async () => {
    const { metrics, raw, named } = capture();
    const worker = bench.worker({ metrics });
    await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'm-approve' });
    await bench.send({
      triggerId: 'trg_2',
      phaseId: 'ph_1',
      requestId: 'm-deny',
      requestedBy: { source: 'ci', id: 'blocked' },
    });
    await bench.send({
      triggerId: 'trg_5',
      phaseId: 'ph_1',
      requestId: 'm-ask',
      requestedBy: { source: 'schedule', id: 'nightly' },
    });
    // A slack requester put on the queue without the webhook's proof.
    const forged = await bench.queue.sqs.send(
      new (await import('@aws-sdk/client-sqs')).SendMessageCommand({
        QueueUrl: bench.queue.queueUrl,
        MessageBody: JSON.stringify({
          version: 1,
          action: 'approve_phase',
          triggerId: 'trg_3',
          phaseId: 'ph_1',
          requestedBy: { source: 'slack', id: 'U0ADMIN' },
          requestedAt: bench.clock.now.toISOString(),
          requestId: 'm-forged',
        }),
      }),
    );
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    // Its lines are named by its message, never by the id it claims (kept as claimedRequestId).
    const forgedId = `sqs:${forged.MessageId}`;

    bench.clock.now = new Date('2026-11-23T20:00:00Z'); // outside office hours: deferred
    await bench.send({ triggerId: 'trg_4', phaseId: 'ph_1', requestId: 'm-defer' });
    expect(await bench.run(worker, await bench.receive(1))).toEqual({ batchItemFailures: [] });

    for (const line of raw) expect(emfProblems(line), line).toEqual([]);
    const decisions = named('Decisions').map((l) => [l.requestId, l.Action, l.Outcome]);
    expect(decisions).toEqual(
      expect.arrayContaining([
        ['m-approve', 'approve_phase', 'approved'],
        ['m-deny', 'approve_phase', 'denied'],
        ['m-ask', 'approve_phase', 'asked'],
        [forgedId, 'approve_phase', 'not-proven'],
        ['m-defer', 'approve_phase', 'deferred'],
      ]),
    );
    expect(named('MutationsSent').map((l) => [l.requestId, l.Action])).toEqual([
      ['m-approve', 'approve_phase'],
    ]);
    expect(named('DeadLettered').map((l) => [l.requestId, l.Reason])).toEqual([[forgedId, 'not-proven']]);
    expect(named('HeldRequests').map((l) => [l.requestId, l.Why])).toEqual(
      expect.arrayContaining([
        ['m-ask', 'ask'],
        ['m-defer', 'window'],
      ]),
    );
    expect(named('HeldRequests')).toHaveLength(2);
  });
});

describe('the Console API client', () => {
  it('reports latency of each answer, 401s and 429s', async () => {
    const sandbox = await startSandbox({ rateLimits: { limits: [{ max: 1, perMs: 60_000 }] } });
    try {
      const { metrics, raw, named } = capture();
      const observe = consoleApiMetrics(metrics);
      const ok = createConsoleClient({ baseUrl: sandbox.url, apiKey: 'sandbox-key', maxRetries: 0, observe });
      await ok.segments.list({ page: 1, limit: 1 });
      // Mutations are limited to one a minute here: the second is answered 429.
      for (const triggerId of ['trg_1', 'trg_2'])
        await ok.releasePipelineTriggers.approve(triggerId, { phaseID: 'ph_1' }).catch(() => undefined);
      const bad = createConsoleClient({ baseUrl: sandbox.url, apiKey: 'wrong-key', maxRetries: 0, observe });
      await bad.segments.list({ page: 1, limit: 1 }).catch(() => undefined);
      for (const line of raw) expect(emfProblems(line), line).toEqual([]);
      expect(named('ConsoleApiLatency').length).toBeGreaterThanOrEqual(2);
      expect(named('ConsoleApiLatency').every((l) => typeof l.ConsoleApiLatency === 'number')).toBe(true);
      expect(named('ConsoleApiUnauthorized')).toHaveLength(1);
      expect(named('ConsoleApiThrottled')).toHaveLength(1);
      expect(named('ConsoleApiUnreachable')).toHaveLength(0);
    } finally {
      await sandbox.close();
    }
  });

  it('reports each attempt answered 5xx, with its method, path and status', async () => {
    const sandbox = await startSandbox({ faults: { errorRate: 1 } });
    try {
      const { metrics, raw, named } = capture();
      const observe = consoleApiMetrics(metrics);
      const client = createConsoleClient({
        baseUrl: sandbox.url,
        apiKey: 'sandbox-key',
        maxRetries: 1,
        observe,
      });
      await client.segments.get('seg_1').catch(() => undefined);
      for (const line of raw) expect(emfProblems(line), line).toEqual([]);
      const errors = named('ConsoleApiServerErrors');
      expect(errors).toHaveLength(2);
      for (const line of errors) {
        expect(line).toMatchObject({
          ConsoleApiServerErrors: 1,
          method: 'GET',
          path: '/console/v1/segments/seg_1',
        });
        expect(line.status).toBeGreaterThanOrEqual(500);
      }
    } finally {
      await sandbox.close();
    }
  });

  it('reports an attempt that got no answer, but not one the caller aborted', async () => {
    const { metrics, raw, named } = capture();
    const observe = consoleApiMetrics(metrics);
    const unreachable = createConsoleClient({
      baseUrl: await closedPortUrl(),
      apiKey: 'sandbox-key',
      maxRetries: 0,
      observe,
    });
    await unreachable.segments.get('seg_1').catch(() => undefined);
    const aborted = new AbortController();
    aborted.abort();
    await unreachable.segments.get('seg_1', { signal: aborted.signal }).catch(() => undefined);
    for (const line of raw) expect(emfProblems(line), line).toEqual([]);
    expect(named('ConsoleApiUnreachable')).toMatchObject([{ ConsoleApiUnreachable: 1, error: 'connection' }]);
  });
});

describe('the mutation budget', () => {
  it('reports a mutation that waited for it, and how long', async () => {
    const sandbox = await startSandbox({ rateLimits: false });
    try {
      const { metrics, named } = capture();
      const client = createConsoleClient({
        baseUrl: sandbox.url,
        apiKey: 'sandbox-key',
        maxRetries: 0,
        mutationBudget: { limits: [{ max: 1, perMs: 300 }] },
        observe: consoleApiMetrics(metrics),
      });
      for (const triggerId of ['trg_1', 'trg_2'])
        await client.releasePipelineTriggers.approve(triggerId, { phaseID: 'ph_1' }).catch(() => undefined);
      // The first token was free; the second waited for the window to turn.
      const waits = named('BudgetWaits');
      expect(waits).toHaveLength(1);
      expect(waits[0]?.BudgetWaits).toBeGreaterThanOrEqual(5);
    } finally {
      await sandbox.close();
    }
  });
});

describe('the sweeper', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('reports events read, lag, stale configs, and a real run duration', async () => {
    const state = await freshState(rig);
    const { metrics, raw, named } = capture();
    const { logger, lines } = memoryLogger();
    rig.clock.now = NOW;
    const summary = await makeSweeper(rig, state, {
      policy: policyWith(rig),
      metrics,
      logger,
      // The rig's clock advances 5 ms per reading, so a run lasts a known, non-zero time.
      clock: () => (rig.clock.now += 5),
    }).run({ now: new Date(NOW) });
    for (const line of raw) expect(emfProblems(line), line).toEqual([]);
    expect(summary.durationMs).toBeGreaterThan(0);
    // The logged summary tells the same duration (it used to be logged before it was set: 0).
    const logged = lines.find((l) => l.message === 'sweeper run summary') as {
      summary: { durationMs: number };
    };
    expect(logged.summary.durationMs).toBe(summary.durationMs);
    expect(named('EventsRead')[0]?.EventsRead).toBe(summary.events.eventsRead);
    expect(summary.events.eventsRead).toBeGreaterThan(0);
    expect(summary.events.caughtUp).toBe(true);
    expect(named('SweeperLag')[0]?.SweeperLag).toBe(0);
    expect(named('NewestEventAge')[0]?.NewestEventAge).toBeGreaterThanOrEqual(0);
    expect(named('StaleConfigsFound')[0]?.StaleConfigsFound).toBe(summary.stale.stale.length);
    expect(named('StaleConfigsQueued')[0]?.StaleConfigsQueued).toBe(summary.stale.queued.length);
  });
});
