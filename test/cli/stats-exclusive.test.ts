/**
 * `autopilot stats (--local | --file <metrics.jsonl>)`: the usage offers one or the other, but
 * given both the command read the running stack's metrics and ignored the named file without a
 * word, so an operator comparing a saved file read the live stack's figures as the file's. Both
 * at once is a bad command line (exit 2), as `audit --request … --target …` is.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

describe('autopilot stats --local --file', () => {
  it('is refused as a bad command line, reading neither', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'autopilot-review-cli-stats-'));
    const live = join(dir, 'live.jsonl');
    const saved = join(dir, 'saved.jsonl');
    const line = (metric: string) =>
      JSON.stringify({
        _aws: {
          Timestamp: 0,
          CloudWatchMetrics: [
            {
              Namespace: 'ConsoleAutopilot',
              Dimensions: [['Service']],
              Metrics: [{ Name: metric, Unit: 'Count' }],
            },
          ],
        },
        Service: 'worker',
        [metric]: 1,
      });
    writeFileSync(live, `${line('LiveMetric')}\n`);
    writeFileSync(saved, `${line('SavedMetric')}\n`);
    const endpoints = join(dir, 'endpoints.json');
    writeFileSync(endpoints, JSON.stringify({ webhookUrl: 'http://127.0.0.1:9', metricsFile: live }));
    const run = captureIo({ env: { AUTOPILOT_ENDPOINTS_FILE: endpoints } });
    const code = await runCli(['stats', '--local', '--file', saved], run.io);
    expect(run.out()).not.toContain('LiveMetric');
    expect(code).toBe(2);
    expect(run.err()).toContain('--local and --file exclude each other');
  });
});
