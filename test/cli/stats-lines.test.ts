/**
 * `autopilot stats --file` says lines that are not EMF are skipped; a line that is JSON but not
 * an object (`null`, a number: a log line cut short, another tool's output) or whose `_aws` is not
 * what EMF says ended the command in `TypeError: Cannot read properties of null (reading '_aws')`.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const emf = JSON.stringify({
  _aws: {
    Timestamp: 0,
    CloudWatchMetrics: [
      {
        Namespace: 'ConsoleAutopilot',
        Dimensions: [['Service']],
        Metrics: [{ Name: 'Decisions', Unit: 'Count' }],
      },
    ],
  },
  Service: 'worker',
  Decisions: 1,
});

describe('autopilot stats on a file with lines that are not EMF', () => {
  it('skips them and sums the EMF lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autopilot-stats-'));
    const file = join(dir, 'metrics.jsonl');
    const odd = ['null', '42', '"text"', '{"_aws":null}', '{"_aws":{"CloudWatchMetrics":5}}'];
    writeFileSync(file, [emf, ...odd, emf].join('\n'));
    const t = captureIo();
    expect(await runCli(['stats', '--file', file, '--json'], t.io), t.err()).toBe(0);
    const series = JSON.parse(t.out()) as Array<{ metric: string; sum: number }>;
    expect(series.map((s) => [s.metric, s.sum])).toEqual([['Decisions', 2]]);
  });
});
