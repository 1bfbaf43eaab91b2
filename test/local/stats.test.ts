/**
 * Issue 15 item 9: the local stack's functions write the same EMF lines as on Lambda, and
 * `autopilot stats --local` adds them up as the dashboard would. The policy is the shipped one
 * without its freeze; the CLI's request is decided as approved or deferred depending on the
 * hour (the local stack runs on the wall clock), and counted either way.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { MetricSeries } from '../../src/cli/stats.js';
import type { LocalStack } from '../../src/local/stack.js';
import { readAudit } from '../../src/state/audit.js';
import { captureIo } from '../helpers/cli-io.js';
import { bootTestStack, canaryTriggers, type TestStack } from '../helpers/local-stack.js';
import { emfProblems } from '../observability/emf.js';

let t: TestStack;
let stack: LocalStack;

beforeAll(async () => {
  t = await bootTestStack('stats');
  stack = t.stack;
});
afterAll(async () => {
  await t?.stop();
});

const io = () => captureIo({ env: t.cliEnv, cwd: t.dir, now: () => new Date() });

describe('metrics on the local stack', () => {
  it('are EMF lines in the stack, added up by autopilot stats --local', async () => {
    const enqueue = io();
    const [canary = 'none'] = canaryTriggers(stack);
    const args = ['enqueue', 'approve', canary, 'ph_1', '--local', '--request-id', 'stats-1'];
    expect(await runCli([...args, '--requested-by', 'ci:release'], enqueue.io)).toBe(0);
    const table = { client: stack.emulators.dynamo, tableName: stack.endpoints.tableName };
    for (let i = 0; i < 100 && (await readAudit(table, 'stats-1')).length === 0; i++)
      await new Promise((r) => setTimeout(r, 100));
    await stack.runSweeper();

    const file = stack.endpoints.metricsFile as string;
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    for (const line of lines) expect(emfProblems(line), line).toEqual([]);
    const decision = lines
      .map((l) => JSON.parse(l))
      .find((l) => l.requestId === 'stats-1' && 'Decisions' in l);
    expect(['approved', 'deferred']).toContain(decision?.Outcome);

    const stats = io();
    expect(await runCli(['stats', '--local', '--json'], stats.io)).toBe(0);
    const series = JSON.parse(stats.out()) as MetricSeries[];
    const decisions = series.filter((s) => s.service === 'worker' && s.metric === 'Decisions');
    expect(decisions.reduce((n, s) => n + s.sum, 0)).toBeGreaterThanOrEqual(1);
    expect(decisions.every((s) => s.dimensions.Action === 'approve_phase')).toBe(true);
    expect(series.find((s) => s.service === 'sweeper' && s.metric === 'EventsRead')?.sum).toBeGreaterThan(0);
    const latency = series.find((s) => s.service === 'sweeper' && s.metric === 'ConsoleApiLatency');
    expect(latency?.p50).toBeGreaterThanOrEqual(0);
    expect(latency?.p99).toBeGreaterThanOrEqual(latency?.p50 ?? 0);

    const table_ = io();
    expect(await runCli(['stats', '--local'], table_.io)).toBe(0);
    expect(table_.out()).toContain('Decisions');
    expect(table_.out()).toContain('Action=approve_phase');
  });
});
