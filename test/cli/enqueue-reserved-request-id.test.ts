/**
 * `enqueue approve` says it validates the request against the public contract before sending it,
 * and the contract reserves request ids our own producers derive (`slack-…`, `…:approved-by:…`,
 * `ev:…`, `stale:…`) for their sources: a `ci:` request under one is refused to the DLQ at once
 * (`request-id-reserved`). The CLI sent such a request and exited 0 ("queued", a message id on
 * stdout), and `--print` showed it as a valid request: a CI job without `--wait` went on believing
 * its approval was queued. It must be refused on the command line (exit 2), with nothing sent.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readAudit } from '../../src/state/audit.js';
import { captureIo } from '../helpers/cli-io.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

async function enqueue(requestId: string, extra: string[] = []) {
  const io = captureIo({
    env: { AWS_ENDPOINT_URL_SQS: bench.emulators.sqsEndpoint },
    now: () => bench.clock.now,
  });
  const code = await runCli(
    [
      'enqueue',
      'approve',
      'trg_7',
      'ph_1',
      '--requested-by',
      'ci:deploy',
      '--request-id',
      requestId,
      '--queue-url',
      bench.queue.queueUrl,
      ...extra,
    ],
    io.io,
  );
  return { code, out: io.out(), err: io.err() };
}

describe('enqueue refuses a request id the contract reserves for another source', () => {
  it.each([
    'stale:new_checkout_copy:1',
    'ev:approve-canary:abc',
    'slack-1234',
    'deploy-9:approved-by:U0ADMIN',
  ])('%s: exit 2, nothing sent, and the worker has nothing to refuse', async (requestId) => {
    const { code, err } = await enqueue(requestId);
    // What the worker does with one that gets through: refused to the DLQ, nothing approved.
    const sent = await bench.receive();
    if (sent.Records.length > 0) {
      await bench.run(bench.worker(), sent);
      const audit = await readAudit(bench.table, requestId);
      expect(audit.map((r) => r.rule)).toEqual(['request-id-reserved']);
    }
    expect(sent.Records).toHaveLength(0);
    expect(code, err).toBe(2);
    expect(err).toContain(requestId);
  });

  it('--print does not show one as a valid request either', async () => {
    const { code, out } = await enqueue('stale:new_checkout_copy:2', ['--print']);
    expect(code).toBe(2);
    expect(out).toBe('');
  });
});
