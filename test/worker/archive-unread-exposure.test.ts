/**
 * The worker re-checks a held stale-sweep archive against the `lastseen` index, but that index
 * only knows what the sweeper has read. When the sweeper cannot read the event log (here every
 * run after the judgment fails), an exposure logged meanwhile is never recorded: the worker must
 * not archive from missing data. It waits until the sweeper has read up to the last hour
 * (src/policy/stale-sweep.ts), and then the exposure denies the archive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { listHeld } from '../../src/state/held.js';
import { createSweeper } from '../../src/sweeper/sweeper.js';
import type { EventsSource } from '../../src/sweeper/types.js';
import { releaseHeld } from '../../src/worker/release.js';
import { memoryLogger } from '../sweeper/harness.js';
import { type Bench, basePolicy, startBench } from './fixture.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

let bench: Bench;
beforeAll(async () => {
  bench = await startBench({ sandbox: { eventCount: 0 } });
});
afterAll(async () => {
  await bench?.close();
});

describe('a held stale-config archive while the sweeper cannot read the event log', () => {
  it('is not executed although an exposure logged since was never read', async () => {
    const t0 = bench.clock.now.getTime(); // 2026-11-23T10:00:00Z
    const policyInput: PolicyInput = {
      ...basePolicy(bench.slack.origin),
      actions: { archive_config: { requesters: ['schedule:*'], maxPerDay: 1 } },
      sweeper: {
        staleConfigs: { discover: true, staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
      },
    };
    bench.api.sandbox.addEvents([
      { timestamp: t0 - 40 * DAY, name: 'config_exposure', metadata: { config: 'feature_tour' } },
      { timestamp: t0 - 40 * DAY + 1, name: 'config_exposure', metadata: { config: 'api_timeout_ms' } },
      // A config in use: exposures are recorded at all, so the sweep judges the others.
      { timestamp: t0 - 2 * HOUR, name: 'config_exposure', metadata: { config: 'checkout_banner' } },
      { timestamp: t0 - 39 * DAY, name: 'page_view' },
      { timestamp: t0 - 38 * DAY, name: 'page_view' },
      { timestamp: t0 - HOUR, name: 'page_view' },
    ]);
    const api = createConsoleClient({
      baseUrl: bench.api.url,
      apiKey: 'sandbox-key',
      maxRetries: 0,
      clock: clockOf(() => bench.clock.now.getTime()),
    }).events;
    let readable = true;
    const events: EventsSource = {
      list(params, options) {
        if (!readable) return Promise.reject(new Error('GET /events: 503'));
        return api.list(params, options);
      },
    };
    const sweeper = createSweeper({
      policy: parsePolicy(policyInput),
      events,
      table: bench.table,
      sqs: bench.queue.sqs,
      queueUrl: bench.queue.queueUrl,
      signer: createRequesterSigner(async () => bench.requesterKeys),
      logger: memoryLogger().logger,
      clock: () => bench.clock.now.getTime(),
      pageSize: 100,
    });
    const worker = bench.worker({ policy: policyInput });
    const first = await sweeper.run({ now: new Date(t0), remainingMs: 60_000 });
    expect(first.stale.queued.sort()).toEqual(['api_timeout_ms', 'feature_tour']);
    for (const record of (await bench.receive()).Records) await bench.run(worker, { Records: [record] });
    const [held] = await listHeld(bench.table);
    expect(held?.why).toBe('limit');
    const heldConfig = String((held?.request as { configId?: string } | undefined)?.configId);

    // From now on every sweeper run fails to read; the held config is exposed two hours later.
    readable = false;
    bench.api.sandbox.addEvents([
      { timestamp: t0 + 2 * HOUR, name: 'config_exposure', metadata: { config: heldConfig } },
    ]);
    for (const at of [t0 + 2 * HOUR, t0 + 8 * HOUR]) {
      bench.clock.now = new Date(at);
      const run = await sweeper.run({ now: new Date(at), remainingMs: 60_000 });
      expect(run.stop).toBe('error');
    }

    const nextDay = new Date('2026-11-24T00:00:30Z');
    bench.clock.now = nextDay;
    const tick = {
      table: bench.table,
      sqs: bench.queue.sqs,
      queueUrl: bench.queue.queueUrl,
      logger: createLogger({ service: 'release', sink: () => {} }),
      signer: createRequesterSigner(async () => bench.requesterKeys),
    };
    expect((await releaseHeld(tick, nextDay)).released).toEqual([held?.requestId]);
    bench.clock.now = new Date(nextDay.getTime() + 5_000);
    await bench.run(worker, await bench.receive());
    expect(bench.api.sandbox.state.configs.get(heldConfig)?.archived ?? false).toBe(false);
  });
});
