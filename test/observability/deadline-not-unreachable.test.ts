/**
 * The worker gives each Console API call a deadline: the invocation's remaining time (less a
 * margin). An attempt cut short by it was counted as ConsoleApiUnreachable, whose alarm tells
 * on-call the platform is not answering ("check the platform's status, the network path") when
 * only our Lambda was running out of time. It is counted apart (ConsoleApiDeadlineCuts); an
 * attempt that outlived its own timeout is still the platform's silence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiTimeoutError, clockOf, createConsoleClient } from '../../src/console/index.js';
import { consoleApiMetrics, createMetrics } from '../../src/observability/metrics.js';
import { type ScriptedServer, startScriptedServer } from '../console/helpers/scripted-server.js';

const T0 = Date.parse('2026-11-23T10:00:00Z');

let server: ScriptedServer;
beforeAll(async () => {
  // A platform that never answers: only a limit of ours ends the attempt.
  server = await startScriptedServer(() => 'hang');
});
afterAll(async () => {
  await server?.close();
});

function capture() {
  const raw: string[] = [];
  const metrics = createMetrics({ service: 'worker', sink: (line) => raw.push(line), now: () => T0 });
  const named = (name: string) =>
    raw.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => name in line);
  return { metrics, named };
}

/** A client whose clock stands still at T0: the time left before a deadline is exactly what the test says. */
function clientOf(metrics: ReturnType<typeof capture>['metrics'], timeoutMs: number) {
  return createConsoleClient({
    baseUrl: server.url,
    apiKey: 'sandbox-key',
    maxRetries: 0,
    timeoutMs,
    clock: clockOf(() => T0),
    observe: consoleApiMetrics(metrics),
  });
}

describe('a Console API attempt cut short', () => {
  it('by our own deadline is not counted as the platform unreachable, but apart', async () => {
    const { metrics, named } = capture();
    // The attempt's own timeout is long; the invocation has 40 ms left.
    const call = clientOf(metrics, 10_000).segments.get('seg_1', { deadline: T0 + 40 });
    await expect(call).rejects.toThrow(ApiTimeoutError);
    await expect(call).rejects.toThrow(/\(deadline\)/);
    expect(named('ConsoleApiUnreachable')).toEqual([]);
    expect(named('ConsoleApiDeadlineCuts')).toEqual([
      expect.objectContaining({ ConsoleApiDeadlineCuts: 1, method: 'GET' }),
    ]);
  });

  it('by its own timeout is still counted as the platform unreachable', async () => {
    const { metrics, named } = capture();
    // The same silence, with time to spare: the attempt's timeout (40 ms) ends it.
    const call = clientOf(metrics, 40).segments.get('seg_1', { deadline: T0 + 60_000 });
    await expect(call).rejects.toThrow(/\(timeout\)/);
    expect(named('ConsoleApiUnreachable')).toEqual([
      expect.objectContaining({ ConsoleApiUnreachable: 1, method: 'GET', error: 'timeout' }),
    ]);
    expect(named('ConsoleApiDeadlineCuts')).toEqual([]);
  });
});
