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

/** Adds up EMF lines per series (service, metric, dimension values). Lines that are not EMF are skipped. */
export function summarizeEmf(lines: string[]): MetricSeries[] {
  const series = new Map<string, MetricSeries & { values: number[] }>();
  for (const line of lines) {
    let doc: EmfLine;
    try {
      doc = JSON.parse(line) as EmfLine;
    } catch {
      continue;
    }
    for (const directive of doc._aws?.CloudWatchMetrics ?? []) {
      const names = (directive.Dimensions?.[0] ?? []).filter((d) => d !== 'Service');
      const dimensions = Object.fromEntries(names.map((d) => [d, String(doc[d])]));
      for (const { Name, Unit = 'None' } of directive.Metrics ?? []) {
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
