/**
 * What Powertools Metrics would cost the functions against our hand-written EMF writer: each
 * fixture emits the same decision metric, bundled with the deployed esbuild options, imported
 * and invoked once in fresh processes (interleaved, median of N). The README's "why EMF by
 * hand" cites these rows.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundledPolicy, esbuildOptions, REPO_ROOT } from '../infra/bundling.js';
import { median } from './stats.js';
import type { BenchSection } from './types.js';

const RUNS = Number(process.env.BENCH_METRICS_RUNS ?? 41);

/** Import time and the first call's time, in one fresh process. */
const SCRIPT = [
  'const t0 = performance.now();',
  'const m = await import(process.argv[1]);',
  'const t1 = performance.now();',
  'await m.handler();',
  'const t2 = performance.now();',
  'process.stderr.write(JSON.stringify([t1 - t0, t2 - t1]));',
].join(' ');

const round2 = (n: number) => Math.round(n * 100) / 100;

export async function run(): Promise<BenchSection> {
  const work = mkdtempSync(join(tmpdir(), 'autopilot-metrics-bench-'));
  try {
    const policy = bundledPolicy(join(REPO_ROOT, 'policy.json'));
    const variants = [
      { name: 'EMF by hand (ours)', entry: 'emf-metrics-handler.ts' },
      { name: 'Powertools Metrics 2.35', entry: 'powertools-metrics-handler.ts' },
    ].map((v) => ({ ...v, file: join(work, `${v.entry}.mjs`), init: [] as number[], call: [] as number[] }));
    for (const v of variants)
      await build(esbuildOptions(join(REPO_ROOT, 'bench', 'fixtures', v.entry), v.file, policy));
    for (let round = 0; round < RUNS; round++) {
      for (const v of round % 2 ? [...variants].reverse() : variants) {
        const out = spawnSync(
          process.execPath,
          ['--input-type=module', '-e', SCRIPT, pathToFileURL(v.file).href],
          {
            encoding: 'utf8',
            timeout: 20_000,
            env: { PATH: process.env.PATH, POWERTOOLS_METRICS_NAMESPACE: 'ConsoleAutopilot' },
          },
        );
        if (out.status !== 0) throw new Error(`metrics: ${v.name} failed: ${out.stderr.slice(0, 500)}`);
        const [init, call] = JSON.parse(out.stderr.slice(out.stderr.lastIndexOf('['))) as [number, number];
        v.init.push(init);
        v.call.push(call);
      }
    }
    const [ours, powertools] = variants as [(typeof variants)[0], (typeof variants)[0]];
    const rows: BenchSection['rows'] = [];
    for (const v of variants) {
      rows.push(
        { name: `${v.name}: import (init), median of ${RUNS}`, value: round2(median(v.init)), unit: 'ms' },
        { name: `${v.name}: first call`, value: round2(median(v.call)), unit: 'ms' },
        { name: `${v.name}: bundle size`, value: Math.round(statSync(v.file).size / 100) / 10, unit: 'KB' },
      );
    }
    const extra = median(powertools.init) - median(ours.init);
    const total = (v: (typeof variants)[0]) => median(v.init.map((init, i) => init + (v.call[i] as number)));
    return {
      title: 'Metrics: EMF by hand vs Powertools Metrics',
      rows,
      notes: [
        `Powertools Metrics adds ${round2(extra)} ms to init and ${Math.round((statSync(powertools.file).size - statSync(ours.file).size) / 1000)} KB to the bundle over our writer (same metric, same bundling, fresh processes interleaved).`,
        `Import plus first call: ours ${round2(total(ours))} ms, Powertools ${round2(total(powertools))} ms. Our first call pays for opening stdout (Powertools opens its console at import); in the functions the logger opens it anyway.`,
      ],
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
