/**
 * `autopilot stats --local`: the metrics the local stack's functions emitted since it started,
 * added up as the dashboard would show them (sums for counts, p50/p99 for times), so a developer
 * sees what production would. Reads the EMF lines the stack keeps (`metricsFile` in
 * `.local/endpoints.json`), or `--file`.
 */
import { readFileSync } from 'node:fs';
import { parse } from './args.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, printHelp, renderTable } from './io.js';
import { localEndpoints } from './local-endpoints.js';

export const STATS_USAGE = `Usage:
  autopilot stats (--local | --file <metrics.jsonl>) [--json]
      The functions' metrics since the local stack started: counts summed, times as p50/p99,
      by service, metric and dimensions (what the CloudWatch dashboard would show).`;

export interface MetricSeries {
  service: string;
  metric: string;
  dimensions: Record<string, string>;
  unit: string;
  samples: number;
  sum: number;
  p50?: number;
  p99?: number;
}

type EmfLine = Record<string, unknown> & {
  _aws?: {
    CloudWatchMetrics?: Array<{ Dimensions?: string[][]; Metrics?: Array<{ Name: string; Unit?: string }> }>;
  };
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;

/** One metric directive of an EMF line: its dimension names (less `Service`) and its metrics. */
interface Directive {
  names: string[];
  metrics: Array<{ Name: string; Unit?: string }>;
}

/**
 * A line's EMF object and directives, or undefined for a line that is not EMF: not JSON, JSON
 * that is no object (`null`, a number: a line cut short) or whose `_aws` is not EMF's shape.
 */
function emfOf(line: string): { doc: EmfLine; directives: Directive[] } | undefined {
  let doc: EmfLine;
  try {
    doc = JSON.parse(line) as EmfLine;
  } catch {
    return undefined;
  }
  const found: unknown = doc && typeof doc === 'object' ? doc._aws?.CloudWatchMetrics : undefined;
  if (!Array.isArray(found)) return undefined;
  const list = <T>(value: unknown): T[] => (Array.isArray(value) ? value : []);
  const directives = found
    .filter((d): d is Record<string, unknown> => d !== null && typeof d === 'object')
    .map((d) => ({
      names: list<unknown>(list<unknown>(d.Dimensions)[0]).filter(
        (n): n is string => typeof n === 'string' && n !== 'Service',
      ),
      metrics: list<{ Name: string; Unit?: string }>(d.Metrics).filter((m) => typeof m?.Name === 'string'),
    }));
  return { doc, directives };
}

/** Adds up EMF lines per series (service, metric, dimension values). Lines that are not EMF are skipped. */
export function summarizeEmf(lines: string[]): MetricSeries[] {
  const series = new Map<string, MetricSeries & { values: number[] }>();
  for (const line of lines) {
    const emf = emfOf(line);
    if (!emf) continue;
    const { doc } = emf;
    for (const directive of emf.directives) {
      const dimensions = Object.fromEntries(directive.names.map((d) => [d, String(doc[d])]));
      for (const { Name, Unit = 'None' } of directive.metrics) {
        const raw = doc[Name];
        const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is number => typeof v === 'number');
        const service = String(doc.Service ?? '-');
        const key = JSON.stringify([service, Name, dimensions]);
        let entry = series.get(key);
        if (!entry) {
          entry = { service, metric: Name, dimensions, unit: Unit, samples: 0, sum: 0, values: [] };
          series.set(key, entry);
        }
        entry.samples += values.length;
        for (const v of values) entry.sum += v;
        entry.values.push(...values);
      }
    }
  }
  return [...series.values()]
    .map(({ values, ...entry }) => {
      if (entry.unit === 'Count') return entry;
      const sorted = [...values].sort((a, b) => a - b);
      return { ...entry, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    })
    .sort((a, b) => `${a.service} ${a.metric}`.localeCompare(`${b.service} ${b.metric}`));
}

export async function statsCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    { local: { type: 'boolean' }, file: { type: 'string' }, json: { type: 'boolean' } },
    STATS_USAGE,
    { min: 0, max: 0 },
  );
  if (help) return printHelp(io, STATS_USAGE);
  // One or the other: reading the live stack's figures as the named file's would mislead.
  if (values.local && values.file !== undefined)
    throw new UsageError('--local and --file exclude each other', STATS_USAGE);
  let file = values.file as string | undefined;
  if (values.local) {
    file = localEndpoints(io).metricsFile;
    if (!file)
      throw new CommandError('the running local stack keeps no metrics file (restart it with `npm start`)');
  }
  if (!file)
    throw new UsageError('say where: --local (the running stack) or --file <metrics.jsonl>', STATS_USAGE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CommandError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  const series = summarizeEmf(text.split('\n').filter(Boolean));
  if (values.json) {
    io.stdout(JSON.stringify(series, null, 2));
    return EXIT.ok;
  }
  if (series.length === 0) {
    io.stdout('No metrics yet: nothing has happened since the stack started.');
    return EXIT.ok;
  }
  const round = (n: number | undefined) => (n === undefined ? '' : String(Math.round(n * 10) / 10));
  io.stdout(
    renderTable(
      ['service', 'metric', 'dimensions', 'unit', 'samples', 'sum', 'p50', 'p99'],
      series.map((s) => [
        s.service,
        s.metric,
        Object.entries(s.dimensions)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ') || '-',
        s.unit,
        String(s.samples),
        round(s.sum),
        round(s.p50),
        round(s.p99),
      ]),
    ),
  );
  return EXIT.ok;
}
