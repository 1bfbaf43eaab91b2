/**
 * `--since` takes a duration (`30d`) or an instant. A duration longer than any date reaches
 * back to (`99999999999d`) made an invalid date, which failed later as "cannot read the audit
 * trail of <table>: Invalid time value" with exit 1, as if the table were unreachable. It is a
 * bad command line: exit 2, naming --since.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

describe('--since beyond any date', () => {
  it.each([
    [['audit', '--since', '99999999999d', '--table', 'state']],
    [['policy', 'replay', '--policy', 'policy.json', '--since', '99999999999d', '--table', 'state']],
  ])('%j is a usage error naming --since', async (args) => {
    const t = captureIo({
      env: { AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9', AWS_REGION: 'eu-west-1' },
    });
    expect(await runCli(args, t.io)).toBe(2);
    expect(t.err()).toContain('--since');
    expect(t.err()).not.toContain('cannot read the audit trail');
  });
});
