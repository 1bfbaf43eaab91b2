/**
 * Policy decision cost per message, absolute p50 and p99 against a 1 ms target. Cases: an
 * approval inside its window
 * with an hourly counter (the common case), one outside its window (finds the next opening
 * in the zone), a sweeper archive with a daily counter (local day bounds), and a freeze.
 * Also: loading and validating the default policy file (warm, in this process: what the local
 * stack, the CLI and the bundling do; a deployed handler trusts its bundle's validated policy
 * instead, see bench/cold-start.bench.ts).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ActionRequest } from '../src/actions/request.js';
import { type DecisionInput, decide } from '../src/policy/decide.js';
import { loadPolicyFile } from '../src/wiring/policy-file.js';
import { percentile } from './stats.js';
import type { BenchSection } from './types.js';

const ROUNDS = Number(process.env.BENCH_POLICY_ROUNDS ?? 2000);
const TARGET_MS = 1; // per decision, p50 and p99: negligible next to one API call (tens of ms)

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
    const input: DecisionInput = { request: c.request, now: new Date(c.now), pause: { paused: false } };
    const decideTimes: number[] = [];
    for (let i = 0; i < 200; i++) decide(policy, input);
    for (let i = 0; i < ROUNDS; i++) {
      const start = performance.now();
      decide(policy, input);
      decideTimes.push(performance.now() - start);
    }
    for (const p of [50, 99]) {
      const value = percentile(decideTimes, p);
      rows.push({
        name: `decide p${p}: ${c.name}`,
        value: round(value),
        unit: 'ms',
        target: `≤ ${TARGET_MS} ms`,
        pass: value <= TARGET_MS,
      });
    }
  }

  const loads: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    loadPolicyFile(resolve(import.meta.dirname, '../policy.json'));
    loads.push(performance.now() - start);
  }
  rows.push({
    name: 'load + validate policy.json, p50 (warm)',
    value: round(percentile(loads, 50)),
    unit: 'ms',
  });

  return {
    title: 'Policy decisions',
    rows,
    notes: [
      `${ROUNDS} decisions per case after 200 warm-up calls; absolute figures against the ${TARGET_MS} ms target (one API call costs tens of ms). No ratio: no other code does this work, so there is no like-for-like baseline.`,
      'Time-zone work uses Intl.DateTimeFormat (cached formatters); the outside-window case scans a few days.',
    ],
  };
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  console.log(JSON.stringify(await run(), null, 2));
}
