/**
 * `npm run bench`: runs every `bench/*.bench.ts` in sequence (one at a time: the machine is
 * shared, and figures measured side by side would disturb each other), then prints and writes
 * one markdown report, `bench/REPORT.md`: per section a table of figures with their same-run
 * baseline, ratio, target and verdict, the commit and date it was measured at, plus the machine.
 * A section that throws or times out is reported as such; the others still run. Exit code 0
 * (the report is the result).
 *
 * `npm run bench -- worker client` runs only the sections whose file name contains a word given,
 * and replaces only those sections of the report: the others keep their figures, commit and date.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  /** The commit (and whether the tree had changes) and time the section was measured at. */
  measured?: { commit: string; at: Date };
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
    `\`bench/${outcome.file}\` · ${(outcome.durationMs / 1000).toFixed(1)} s${
      outcome.measured ? ` · commit ${outcome.measured.commit} · ${outcome.measured.at.toISOString()}` : ''
    }`,
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

/** The commit measured; a tree with changes (other than the report itself) says so, since it is not that commit. */
export function commit(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: BENCH_DIR, encoding: 'utf8' }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    // Tracked files only: an untracked note in the worktree is not part of what runs.
    const changed = git('status', '--porcelain', '--untracked-files=no')
      .split('\n')
      .filter((line) => line.trim() && !line.endsWith('bench/REPORT.md'));
    return changed.length ? `${head} + uncommitted changes` : head;
  } catch {
    return 'unknown';
  }
}

/** One section's block of an existing report, by the bench file it came from. */
export function reportSections(text: string): Map<string, string> {
  const sections = new Map<string, string>();
  const blocks = text.split(/^(?=## )/m).filter((block) => block.startsWith('## '));
  for (const block of blocks) {
    const file = /^`bench\/([^`]+)`/m.exec(block)?.[1];
    if (file) sections.set(file, `${block.trimEnd()}\n`);
  }
  return sections;
}

/** The summary line of a rendered section: figures, targets met, time, status. */
function summaryLine(block: string): string {
  const title = /^## (.*)$/m.exec(block)?.[1] ?? '?';
  const time = /^`bench\/[^`]+` · ([\d.]+ s)/m.exec(block)?.[1] ?? '';
  const rows = block.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| name '));
  const passed = rows.filter((line) => /\| ✅ \|$/.test(line)).length;
  const missed = rows.filter((line) => /\| ❌ \|$/.test(line)).length;
  const status = block.includes('**Failed:**') ? 'failed' : missed ? `${missed} target(s) missed` : 'ok';
  return `| ${title} | ${rows.length} | ${passed}/${passed + missed} | ${time} | ${status} |`;
}

/**
 * The report: this run's sections, and those of `previous` (an existing report) this run did not
 * measure, kept as they were, for the bench files that still exist (`files`). Sections in file order.
 */
export function renderReport(
  outcomes: Outcome[],
  startedAt: Date,
  load: number[],
  previous = '',
  files: string[] = outcomes.map((o) => o.file),
): string {
  const cpu = cpus();
  const blocks = reportSections(previous);
  for (const outcome of outcomes) blocks.set(outcome.file, sectionMarkdown(outcome));
  const kept = [...new Set([...files, ...outcomes.map((o) => o.file)])].sort().filter((f) => blocks.has(f));
  const partial = kept.some((file) => !outcomes.some((o) => o.file === file));
  const measuredAt = outcomes[0]?.measured?.commit ?? commit();
  return [
    '# Benchmark report',
    '',
    partial
      ? `Last updated by \`npm run bench -- ${outcomes.map((o) => o.file.replace('.bench.ts', '')).join(' ')}\` on ${startedAt.toISOString()} (commit ${measuredAt}); the other sections keep the commit and date they were measured at (each section's second line).`
      : `Generated by \`npm run bench\` on ${startedAt.toISOString()} (commit ${measuredAt}).`,
    '',
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
      `${platform()} ${release()} ${arch()}, Node ${process.version}; load average at start ` +
      `${load.map((l) => l.toFixed(2)).join(' / ')} (a shared machine: compare ratios, not absolute figures).`,
    '',
    'Each ratio is a figure over its baseline measured in the same run; rows without a baseline are absolute figures.',
    '',
    '| section | figures | targets met | time | status |',
    '|---|---:|---:|---:|---|',
    ...kept.map((file) => summaryLine(blocks.get(file) as string)),
    '',
    ...kept.map((file) => blocks.get(file) as string),
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
  const measured = { commit: commit(), at: startedAt };
  const load = loadavg();
  const outcomes: Outcome[] = [];
  for (const file of files) {
    process.stderr.write(`bench: ${file} …\n`);
    const outcome = { ...(await runOne(BENCH_DIR, file)), measured };
    process.stderr.write(
      `bench: ${file} ${outcome.error ? `FAILED (${outcome.error})` : 'done'} in ${(outcome.durationMs / 1000).toFixed(1)} s\n`,
    );
    outcomes.push(outcome);
  }
  const previous = existsSync(REPORT) ? readFileSync(REPORT, 'utf8') : '';
  const report = renderReport(outcomes, startedAt, load, previous, benchFiles(BENCH_DIR));
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
