/**
 * The platform's words in an error body are untrusted and unbounded (only the 16 MB response cap
 * holds them). A 400 carrying a 500 KB message made the audit record and the final too big for a
 * DynamoDB item (400 KB): the request's end was not recorded, and its log line passed CloudWatch's
 * 256 KB event limit. The client bounds what the platform said where it builds its error, so the
 * refusal is recorded, told and logged with the start of the platform's words and a marker.
 *
 * The real worker on the emulators, the real Console client over HTTP against a server answering
 * the approve with such a body.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { type ScriptedServer, startScriptedServer } from '../console/helpers/scripted-server.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();
let platform: ScriptedServer;
beforeAll(async () => {
  platform = await startScriptedServer();
});
afterAll(async () => {
  await platform?.close();
});

// Emoji (two UTF-16 units each) so that a cut at a fixed length could split a surrogate pair.
const huge = `Pipeline rp_1 refused: ${'x'.repeat(1_999 - 'Pipeline rp_1 refused: '.length)}${'😀'.repeat(250_000)}`;

it('a refusal whose message is 500 KB ends rejected, recorded and told, with the platform words bounded', async () => {
  platform.setScript((request) =>
    request.url.includes('/approve')
      ? { status: 400, body: { status: 400, message: huge } }
      : { status: 404 },
  );
  const client = createConsoleClient({
    baseUrl: platform.url,
    apiKey: 'test-key',
    mutationBudget: false,
    timeoutMs: 5_000,
    maxRetries: 0,
    clock: clockOf(() => bench.clock.now.getTime()),
  });
  const id = 'approve-huge-message-1';
  await bench.send({
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestId: id,
    reply: { slackResponseUrl: bench.slack.url('/actions/huge-1') },
  });
  const out = await bench.run(bench.worker({ client }), await bench.receive());

  expect(out).toEqual({ batchItemFailures: [] });
  const final = await readFinal(bench.table, id);
  expect(final?.result).toBe('rejected');
  expect(final?.reason.length).toBeLessThan(4_000);
  const records = await readAudit(bench.table, id);
  const rejected = records.find((r) => r.result === 'rejected');
  expect(rejected?.reason).toContain('Pipeline rp_1 refused');
  expect(rejected?.reason).toMatch(/… \(\d[\d,]* characters more\)/);
  expect(rejected?.reason.length).toBeLessThan(4_000);
  // No lone surrogate where the words were cut.
  expect(rejected?.reason).not.toMatch(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/,
  );
  const reply = bench.slack.posts.filter((p) => p.path === '/actions/huge-1');
  expect(reply).toHaveLength(1);
  expect(reply[0]?.body.text).toContain('Pipeline rp_1 refused');
  for (const line of bench.logs) expect(JSON.stringify(line).length).toBeLessThan(16_000);
});
