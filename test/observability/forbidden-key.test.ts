/**
 * A worker given a Console API key the platform answers 403 (a read-only key, or one whose role
 * lacks a permission such as approving a phase that requires review) fails every mutation. Its
 * 401s page on-call (ConsoleApiUnauthorized); its 403s were counted nowhere, so operators heard
 * of it only from the DLQ or from people. A 403 is a permission an operator must grant, like a
 * refused key: it is counted (ConsoleApiForbidden) and its alarm pages (test/infra/operations.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { clockOf } from '../../src/console/index.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { environmentProvider } from '../../src/secrets/secrets.js';
import { consoleClientFor } from '../../src/wiring/from-env.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile({
  sandbox: { apiKeys: ['sandbox-key', 'viewer-key'], readOnlyApiKeys: ['viewer-key'] },
});

describe('a worker whose Console API key may read but not change', () => {
  it('counts each 403 as ConsoleApiForbidden, with the method, path and status', async () => {
    const raw: string[] = [];
    const metrics = createMetrics({
      service: 'worker',
      sink: (line) => raw.push(line),
      now: () => bench.clock.now.getTime(),
    });
    const named = (name: string) =>
      raw.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => name in line);
    // The worker's own wiring: its key from the secret (here the read-only one), its client's metrics.
    const client = consoleClientFor(
      'worker',
      { CONSOLE_API_BASE_URL: bench.api.url },
      environmentProvider({ CONSOLE_API_KEY: 'viewer-key' }),
      { maxRetries: 0, clock: clockOf(() => bench.clock.now.getTime()) },
      metrics,
    );
    const worker = bench.worker({ client, metrics });
    await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'forbidden-1' });
    await bench.run(worker, await bench.receive(1));

    expect(named('ConsoleApiLatency').map((l) => l.status)).toContain(403);
    expect(named('ConsoleApiForbidden')).toEqual([
      expect.objectContaining({
        ConsoleApiForbidden: 1,
        Service: 'worker',
        method: 'PUT',
        path: '/console/v1/release_pipeline_triggers/trg_1/approve',
        status: 403,
      }),
    ]);
    // Not a refused key, nor the platform failing: the other alarms stay quiet.
    expect(named('ConsoleApiUnauthorized')).toEqual([]);
    expect(named('ConsoleApiServerErrors')).toEqual([]);
  });
});
