/**
 * `npm run bench`: runs every `bench/*.bench.ts` in sequence (one at a time: the machine is
 * shared, and figures measured side by side would disturb each other), then prints and writes
 * one markdown report, `bench/REPORT.md`: per section a table of figures with their same-run
 * baseline, ratio, target and verdict, plus the machine and the date. A section that throws or
 * times out is reported as such; the others still run. Exit code 0 (the report is the result).
 *
 * `npm run bench -- worker client` runs only the sections whose file name contains a word given.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { execFileSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchSection } from './types.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPORT = join(BENCH_DIR, 'REPORT.md');
const SECTION_TIMEOUT_MS = Number(process.env.BENCH_SECTION_TIMEOUT_MS ?? 240_000);

interface Outcome {
  file: string;
  durationMs: number;
  section?: BenchSection;
  error?: string;
}

export function benchFiles(dir = BENCH_DIR, filters: string[] = []): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.bench.ts'))
    .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
    .sort();
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function runOne(dir: string, file: string): Promise<Outcome> {
  const started = performance.now();
  try {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { run?: () => Promise<BenchSection> };
    if (typeof mod.run !== 'function') throw new Error('exports no run(): Promise<BenchSection>');
    const section = await withTimeout(mod.run(), SECTION_TIMEOUT_MS, file);
    if (!section || !Array.isArray(section.rows)) throw new Error('run() did not return a BenchSection');
    return { file, section, durationMs: performance.now() - started };
  } catch (error) {
    return {
      file,
      durationMs: performance.now() - started,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
}

/** Numbers as people read them: at most 3 decimals, no trailing zeros, thousands grouped. */
export function formatNumber(value: number | undefined, digits = 3): string {
  if (value === undefined || value === null) return '';
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  const decimals = abs >= 100 ? 1 : abs >= 1 ? 2 : digits;
  return value.toLocaleString('en-US', { maximumFractionDigits: decimals, useGrouping: abs >= 10_000 });
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function sectionMarkdown(outcome: Outcome): string {
  const lines: string[] = [];
  const title = outcome.section?.title ?? outcome.file;
  lines.push(
    `## ${cell(title)}`,
    '',
    `\`bench/${outcome.file}\` · ${(outcome.durationMs / 1000).toFixed(1)} s`,
    '',
  );
  if (outcome.error) {
    lines.push(`**Failed:** ${cell(outcome.error)}`, '');
    return lines.join('\n');
  }
  const section = outcome.section as BenchSection;
  lines.push(
    '| name | value | unit | baseline | ratio | target | pass |',
    '|---|---:|---|---:|---:|---|:---:|',
  );
  for (const row of section.rows) {
    const ratio = row.ratio ?? (row.baseline ? row.value / row.baseline : undefined);
    const pass = row.pass === undefined ? '—' : row.pass ? '✅' : '❌';
    lines.push(
      `| ${cell(row.name)} | ${formatNumber(row.value)} | ${cell(row.unit)} | ${formatNumber(row.baseline)} | ${
        ratio === undefined ? '' : `${formatNumber(ratio, 2)}×`
      } | ${cell(row.target ?? '')} | ${pass} |`,
    );
  }
  if (section.notes?.length) {
    lines.push('');
    for (const note of section.notes) lines.push(`- ${cell(note)}`);
  }
  lines.push('');
  return lines.join('\n');
}

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: BENCH_DIR, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export function renderReport(outcomes: Outcome[], startedAt: Date, load: number[]): string {
  const cpu = cpus();
  const summary = outcomes.map((o) => {
    const rows = o.section?.rows ?? [];
    const judged = rows.filter((r) => r.pass !== undefined);
    const passed = judged.filter((r) => r.pass).length;
    const status = o.error
      ? 'failed'
      : judged.length === passed
        ? 'ok'
        : `${judged.length - passed} target(s) missed`;
    return `| ${cell(o.section?.title ?? o.file)} | ${rows.length} | ${passed}/${judged.length} | ${(o.durationMs / 1000).toFixed(1)} s | ${status} |`;
  });
  return [
    '# Benchmark report',
    '',
    `Generated by \`npm run bench\` on ${startedAt.toISOString()} (commit ${commit()}).`,
    '',
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `${platform()} ${release()} ${arch()}, Node ${process.version}; load average at start ` +
      `${load.map((l) => l.toFixed(2)).join(' / ')} (a shared machine: compare ratios, not absolute figures).`,
    '',
    'Each figure is measured with its baseline in the same run; ratio = value / baseline.',
    '',
    '| section | figures | targets met | time | status |',
    '|---|---:|---:|---:|---|',
    ...summary,
    '',
    ...outcomes.map(sectionMarkdown),
  ].join('\n');
}

/**
 * Biome formats Markdown in this repository (`npm run lint`): align the tables the way it
 * wants, so a freshly written report never fails the lint. Best effort.
 */
function formatWithBiome(file: string): void {
  try {
    execFileSync(join(BENCH_DIR, '..', 'node_modules', '.bin', 'biome'), ['format', '--write', file], {
      stdio: 'ignore',
    });
  } catch {
    process.stderr.write('bench: could not format the report with Biome; `npx biome format --write` it\n');
  }
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const files = benchFiles(BENCH_DIR, filters);
  const startedAt = new Date();
  const load = loadavg();
  const outcomes: Outcome[] = [];
  for (const file of files) {
    process.stderr.write(`bench: ${file} …\n`);
    const outcome = await runOne(BENCH_DIR, file);
    process.stderr.write(
      `bench: ${file} ${outcome.error ? `FAILED (${outcome.error})` : 'done'} in ${(outcome.durationMs / 1000).toFixed(1)} s\n`,
    );
    outcomes.push(outcome);
  }
  const report = renderReport(outcomes, startedAt, load);
  writeFileSync(REPORT, `${report}\n`);
  formatWithBiome(REPORT);
  process.stdout.write(`${report}\n\nwritten to bench/REPORT.md\n`);
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  main().then(
    // Benchmarks may leave servers or timers behind: the report is written, so end here.
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(0);
    },
  );
}
