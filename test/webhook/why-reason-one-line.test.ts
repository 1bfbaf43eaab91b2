/**
 * `/autopilot why <id>` shows a request's story from the audit trail, one step a line. A refusal's
 * reason is the platform's own message (untrusted), stored as it came: a message holding a line
 * break wrote lines of the platform's choosing into the story, such as a step that never
 * happened ("archived") under the real one ("rejected"). The worker's posts show the same reason
 * on one line (oneLine); the CLI marks line breaks (printable); `why` did neither.
 *
 * The Console API is the sandbox over HTTP, with a fetch in front of it that plays a platform
 * answering the archive 422 with a multi-line message.
 */
import { expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { readRequestAudit } from '../../src/state/audit.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { answerWhy } from '../../src/webhook/why.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

const FORGED = '2026-11-23T10:00:01.000Z  archived  rule chat grant: config feature_tour archived';

const platformFetch: typeof fetch = async (input, init) => {
  if (/\/dynamic_configs\/[^/]+\/archive$/.test(new URL(String(input)).pathname))
    return new Response(JSON.stringify({ status: 422, message: `Cannot archive right now.\n  ${FORGED}` }), {
      status: 422,
      headers: { 'content-type': 'application/json' },
    });
  return fetch(input, init);
};

it("keeps a platform message's line breaks from writing steps into the story `why` shows", async () => {
  const client = createConsoleClient({
    baseUrl: bench.api.url,
    apiKey: 'sandbox-key',
    fetch: platformFetch,
    maxRetries: 0,
    mutationBudget: false,
    clock: clockOf(() => bench.clock.now.getTime()),
  });
  const worker = bench.worker({ client });
  await bench.send({
    action: 'archive_config',
    configId: 'feature_tour',
    reason: 'unused',
    requestId: 'why-forged',
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
  });
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });

  const deps = {
    audit: { read: (id: string) => readRequestAudit(bench.table, id) },
  } as unknown as WebhookDeps;
  const at = bench.clock.now.getTime();
  const answer = await answerWhy(deps, 'why-forged', at + 3_000, () => at);
  const shown = JSON.stringify(answer.reply);
  // The refusal is in the story, with the platform's words…
  expect(shown).toContain('rejected');
  expect(shown).toContain('Cannot archive right now.');
  // …but no line of the story starts with a step the platform wrote.
  const lines = shown.split('\\n').map((line) => line.trim());
  expect(lines.filter((line) => line.startsWith('2026-11-23T10:00:01.000Z'))).toEqual([]);
});
