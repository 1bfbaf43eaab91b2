/**
 * Policy decision cost per message, against what the worker does for every message anyway:
 * `parseActionRequest` of the same body (JSON + zod). Cases: an approval inside its window
 * with an hourly counter (the common case), one outside its window (finds the next opening
 * in the zone), a sweeper archive with a daily counter (local day bounds), and a freeze.
 * Calls are interleaved with the baseline in rounds so machine noise falls on both alike.
 * Also: loading and validating the default policy file (warm, in this process: what the local
 * stack, the CLI and the bundling do; a deployed handler trusts its bundle's validated policy
 * instead, see bench/cold-start.bench.ts).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ActionRequest, parseActionRequest } from '../src/actions/request.js';
import { type DecisionInput, decide } from '../src/policy/decide.js';
import { loadPolicyFile } from '../src/wiring/policy-file.js';
import type { BenchSection } from './types.js';

const ROUNDS = Number(process.env.BENCH_POLICY_ROUNDS ?? 2000);
const TARGET_MS = 1; // per decision, p50: negligible next to one API call (tens of ms)

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}
const round = (n: number, digits = 4) => Number(n.toFixed(digits));

export async function run(): Promise<BenchSection> {
  const policy = loadPolicyFile(resolve(import.meta.dirname, '../policy.json'));
  const base = {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_2',
    requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
    requestedAt: '2026-11-23T08:00:00Z',
  } as const;
  const archive = {
    version: 1,
    action: 'archive_config',
    configId: 'new_checkout_copy',
    reason: 'stale',
    requestedBy: { source: 'schedule', id: 'stale-configs' },
    requestedAt: '2026-11-23T08:00:00Z',
  } as const;
  const cases: Array<{ name: string; request: ActionRequest; now: string }> = [
    { name: 'approval inside its window, hourly counter', request: base, now: '2026-11-23T09:30:00Z' },
    {
      name: 'approval outside its window (next opening)',
      request: { ...base, requestedAt: '2026-11-22T20:00:00Z' },
      now: '2026-11-22T21:00:00Z',
    },
    { name: 'sweeper archive, daily counter', request: archive, now: '2026-11-23T09:30:00Z' },
    {
      name: 'freeze',
      request: { ...base, requestedAt: '2026-12-22T08:00:00Z' },
      now: '2026-12-22T09:00:00Z',
    },
  ];

  const rows: BenchSection['rows'] = [];
  for (const c of cases) {
    const body = JSON.stringify(c.request);
    const input: DecisionInput = { request: c.request, now: new Date(c.now), pause: { paused: false } };
    const decideTimes: number[] = [];
    const parseTimes: number[] = [];
    for (let i = 0; i < 200; i++) {
      decide(policy, input);
      parseActionRequest(body);
    }
    for (let i = 0; i < ROUNDS; i++) {
      // Alternate which goes first, so neither always runs on a warmer cache.
      const order = i % 2 === 0;
      for (const which of order ? ['decide', 'parse'] : ['parse', 'decide']) {
        const start = performance.now();
        if (which === 'decide') decide(policy, input);
        else parseActionRequest(body);
        (which === 'decide' ? decideTimes : parseTimes).push(performance.now() - start);
      }
    }
    decideTimes.sort((a, b) => a - b);
    parseTimes.sort((a, b) => a - b);
    const p50 = percentile(decideTimes, 50);
    const baseline = percentile(parseTimes, 50);
    rows.push({
      name: `decide p50: ${c.name}`,
      value: round(p50),
      unit: 'ms',
      baseline: round(baseline),
      ratio: round(p50 / baseline, 2),
      target: `≤ ${TARGET_MS} ms`,
      pass: p50 <= TARGET_MS,
    });
    rows.push({ name: `decide p99: ${c.name}`, value: round(percentile(decideTimes, 99)), unit: 'ms' });
  }

  const loads: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    loadPolicyFile(resolve(import.meta.dirname, '../policy.json'));
    loads.push(performance.now() - start);
  }
  loads.sort((a, b) => a - b);
  rows.push({
    name: 'load + validate policy.json, p50 (warm)',
    value: round(percentile(loads, 50)),
    unit: 'ms',
  });

  return {
    title: 'Policy decisions',
    rows,
    notes: [
      `${ROUNDS} rounds per case, interleaved with the baseline; baseline = parseActionRequest of the same body.`,
      'Time-zone work uses Intl.DateTimeFormat (cached formatters); the outside-window case scans a few days.',
    ],
  };
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  console.log(JSON.stringify(await run(), null, 2));
}
