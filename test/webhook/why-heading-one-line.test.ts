/**
 * `/autopilot why <id>`'s heading names the request: `request <id>: <action> <target>, asked by
 * <requester>`. A requester id is any queue sender's choice (a CI job's `requestedBy.id`, up to 200
 * characters of anything), and group names are filled by event rules from client-logged metadata
 * (checked for length only). The steps below are put on one line each (`oneLine`), but the heading
 * was escaped only: a line break in a requester id wrote a line of the sender's choosing under the
 * heading ("approved by the release manager"), and a bidi override turned the rest of the heading
 * around in the reader's client.
 *
 * The request goes through the real worker (fauxqs, dynalite, the sandbox over HTTP); the webhook's
 * `why` reads the audit trail it wrote.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readRequestAudit } from '../../src/state/audit.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { answerWhy } from '../../src/webhook/why.js';
import { type Bench, startBench } from '../worker/fixture.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(async () => {
  await bench?.close();
});

const FORGED = ':white_check_mark: approved by the release manager, nothing left to check';

it("keeps a requester id's line break and bidi override out of the heading `why` shows", async () => {
  await bench.send({
    triggerId: 'trg_why',
    phaseId: 'ph_1',
    requestId: 'why-heading',
    requestedBy: { source: 'ci', id: `deploy.yml\n${FORGED}\u202e lmy.yolped` },
  });
  const worker = bench.worker();
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });

  const deps = {
    audit: { read: (id: string) => readRequestAudit(bench.table, id) },
  } as unknown as WebhookDeps;
  const at = bench.clock.now.getTime();
  const answer = await answerWhy(deps, 'why-heading', at + 3_000, () => at);
  const blocks = (answer.reply.blocks ?? []) as Array<{ text?: { text?: string } }>;
  const heading = blocks[0]?.text?.text ?? '';
  expect(heading).toContain('why-heading');
  expect(heading).toContain('deploy.yml');
  // The heading is one line: the sender's words never start a line of their own.
  expect(heading.split('\n').map((line) => line.trim())).not.toContainEqual(
    expect.stringMatching(/^:white_check_mark:/),
  );
  expect(heading).not.toContain('\n');
  // The override is shown, not obeyed; in the fallback text too.
  expect(heading).not.toContain('\u202e');
  expect(answer.reply.text).not.toContain('\u202e');
  expect(answer.reply.text).not.toContain('\n');
});
