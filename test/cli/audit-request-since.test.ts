/**
 * `autopilot audit --request <id> --since 24h`: README documents `--request`, `--target` and
 * `--since` as alternatives (`--since` narrows `--target` only). A `--since` beside `--request`
 * was silently ignored, so an operator asking "did this request do anything in the last day?"
 * got its whole story, steps from days back included, as if they were recent. It is a usage error
 * (exit 2), as `--request` with `--target` is.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

describe('autopilot audit --request with --since', () => {
  it('refuses the combination with exit 2 and says why, rather than showing the whole story', async () => {
    // A request decided on Monday; the operator asks on Friday for the last 24 hours.
    bench.clock.now = new Date('2026-11-23T10:00:00Z');
    await bench.send({ triggerId: 'trg_zz6', phaseId: 'ph_1', requestId: 'old-story' });
    await bench.run(bench.worker(), await bench.receive(1));
    const t = captureIo({
      env: {
        STATE_TABLE_NAME: bench.table.tableName,
        AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
      },
      now: () => new Date('2026-11-27T10:00:00Z'),
    });
    expect(await runCli(['audit', '--request', 'old-story', '--since', '24h'], t.io)).toBe(2);
    expect(t.err()).toContain('--since');
    expect(t.err()).toContain('--request');
    expect(t.out()).not.toContain('old-story');
  });
});
