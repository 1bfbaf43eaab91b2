/**
 * What the stale-archive worker tests share: a log in which two configs went unused forty days
 * ago while another is in use, and the sweeper and the release tick wired to the bench.
 */
import { expect } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { type HeldRecord, listHeld } from '../../src/state/held.js';
import { createSweeper } from '../../src/sweeper/sweeper.js';
import type { EventsSource, SweeperDeps } from '../../src/sweeper/types.js';
import type { ReleaseDeps } from '../../src/worker/release.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { memoryLogger } from '../sweeper/harness.js';
import { type Bench, basePolicy } from './fixture.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** `unused` last exposed forty days before `t0`, a config in use two hours before, and page views. */
export function addStaleLog(bench: Bench, t0: number, [a, b]: readonly [string, string]): void {
  bench.api.sandbox.addEvents([
    { timestamp: t0 - 40 * DAY, name: 'config_exposure', metadata: { config: a } },
    { timestamp: t0 - 40 * DAY + 1, name: 'config_exposure', metadata: { config: b } },
    // A config in use: exposures are recorded at all, so the sweep judges the others.
    { timestamp: t0 - 2 * HOUR, name: 'config_exposure', metadata: { config: 'checkout_banner' } },
    // A product in daily use: the history reaches the sweeper's first read without a silence of
    // more than three days, so observation counts from its oldest event (src/sweeper/observation.ts).
    ...Array.from({ length: 40 }, (_, d) => ({ timestamp: t0 - (39 - d) * DAY - HOUR, name: 'page_view' })),
  ]);
}

/** The bench policy with the stale-config sweep on and at most one archive a day (the second is held). */
export function oneArchiveADayPolicy(bench: Bench): PolicyInput {
  return {
    ...basePolicy(bench.slack.origin),
    actions: { archive_config: { requesters: ['schedule:*'], maxPerDay: 1 } },
    sweeper: {
      staleConfigs: { discover: true, staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
    },
  };
}

/**
 * The sweep at `t0` finds feature_tour and api_timeout_ms stale and queues both; `worker`
 * archives one and holds the other (maxPerDay 1). The held request and its config.
 */
export async function sweepAndHoldOne(
  bench: Bench,
  sweeper: ReturnType<typeof benchSweeper>,
  worker: WorkerHandler,
  t0: number,
): Promise<{ held: HeldRecord | undefined; heldConfig: string }> {
  const first = await sweeper.run({ now: new Date(t0), remainingMs: 60_000 });
  expect(first.stale.queued.sort()).toEqual(['api_timeout_ms', 'feature_tour']);
  for (const record of (await bench.receive()).Records) await bench.run(worker, { Records: [record] });
  const [held] = await listHeld(bench.table);
  expect(held?.why).toBe('limit');
  const heldConfig = String((held?.request as { configId?: string } | undefined)?.configId);
  return { held, heldConfig };
}

/** The event log of the bench's sandbox, read on the bench's clock. */
export function benchEvents(bench: Bench): EventsSource {
  return createConsoleClient({
    baseUrl: bench.api.url,
    apiKey: 'sandbox-key',
    maxRetries: 0,
    clock: clockOf(() => bench.clock.now.getTime()),
  }).events;
}

/** The sweeper under `policyInput`, queueing to the bench's queue, signed with its sweeper key. */
export function benchSweeper(
  bench: Bench,
  policyInput: PolicyInput,
  events = benchEvents(bench),
  extra: Partial<SweeperDeps> = {},
) {
  return createSweeper({
    policy: parsePolicy(policyInput),
    events,
    table: bench.table,
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    signer: createRequesterSigner(async () => bench.requesterKeys),
    logger: memoryLogger().logger,
    clock: () => bench.clock.now.getTime(),
    pageSize: 100,
    ...extra,
  });
}

/** The worker's release tick on the bench. */
export function releaseTick(bench: Bench): ReleaseDeps {
  return {
    table: bench.table,
    sqs: bench.queue.sqs,
    queueUrl: bench.queue.queueUrl,
    logger: createLogger({ service: 'release', sink: () => {} }),
    signer: createRequesterSigner(async () => bench.requesterKeys),
  };
}

/** The bench's event log, failing (a 503) each read for which `fails` says so at the time of the read. */
export function failingEvents(
  bench: Bench,
  fails: (params: Parameters<EventsSource['list']>[0]) => boolean,
): EventsSource {
  const api = benchEvents(bench);
  return {
    list(params, options) {
      if (fails(params)) return Promise.reject(new Error('GET /events: 503'));
      return api.list(params, options);
    },
  };
}

/** A sweeper run at `at`, the bench's clock moved there first. */
export function sweepAt(bench: Bench, sweeper: ReturnType<typeof benchSweeper>, at: number) {
  bench.clock.now = new Date(at);
  return sweeper.run({ now: new Date(at), remainingMs: 60_000 });
}

/**
 * The start the stale-archive tests share: at the bench's `t0`, under `oneArchiveADayPolicy`, the
 * log `addLog` writes (`addStaleLog` of feature_tour and api_timeout_ms by default), a sweeper over
 * `events` (with `extra` deps) and a worker; the sweep at `t0` holds one archive (`sweepAndHoldOne`).
 */
export async function holdOneStaleArchive(
  bench: Bench,
  options: {
    events?: EventsSource;
    extra?: Partial<SweeperDeps>;
    addLog?: (t0: number) => void;
  } = {},
) {
  const t0 = bench.clock.now.getTime();
  const policyInput = oneArchiveADayPolicy(bench);
  (options.addLog ?? ((at) => addStaleLog(bench, at, ['feature_tour', 'api_timeout_ms'])))(t0);
  const sweeper = benchSweeper(bench, policyInput, options.events ?? benchEvents(bench), options.extra);
  const worker = bench.worker({ policy: policyInput });
  const { held, heldConfig } = await sweepAndHoldOne(bench, sweeper, worker, t0);
  return { t0, sweeper, worker, held, heldConfig };
}
