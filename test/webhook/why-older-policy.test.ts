/**
 * `/autopilot why <id>` says under which policy a step was decided when that is not the policy
 * deployed now: a request deferred before a redeploy keeps its old policy's next look (and a
 * question its old policy's hourly looks) until it is looked at again, and the story says so.
 * Steps the deployed policy decided, and records older than the digest, say nothing of it.
 */
import { expect, it } from 'vitest';
import { readRequestAudit, writeAudit } from '../../src/state/audit.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { answerWhy } from '../../src/webhook/why.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

const OLD = '3f2a9c1b0d4e';
const DEPLOYED = '7c5e1a2b3c4d';

async function why(requestId: string, deployed: string): Promise<string[]> {
  const deps = {
    policyDigest: deployed,
    audit: { read: (id: string) => readRequestAudit(bench.table, id) },
  } as unknown as WebhookDeps;
  const at = bench.clock.now.getTime();
  const answer = await answerWhy(deps, requestId, at + 3_000, () => at);
  return JSON.stringify(answer.reply).split('\\n');
}

it('names the older policy a held request was decided under, and only on its steps', async () => {
  // Monday 20:00 UTC, outside office hours: deferred under the policy deployed then.
  bench.clock.now = new Date('2026-11-23T20:00:00Z');
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'why-old-policy' });
  const worker = bench.worker({ policyDigest: OLD });
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });

  const before = await why('why-old-policy', DEPLOYED);
  const deferred = before.find((line) => line.includes(' deferred '));
  expect(deferred).toContain(`decided under policy ${OLD}, not the one deployed now (${DEPLOYED})`);

  // Asked while the same policy is still deployed: nothing to say about it.
  const same = await why('why-old-policy', OLD);
  expect(same.join('\n')).not.toContain('decided under');
});

it('says nothing of the policy for a record written before it was kept', async () => {
  await writeAudit(bench.table, {
    requestId: 'why-legacy',
    at: new Date('2026-11-23T09:00:00Z'),
    action: 'approve_phase',
    target: 'trigger trg_9 phase ph_1',
    effectKey: 'approve_phase#trg_9#ph_1',
    requester: 'ci:deploy.yml',
    rule: 'CI in office hours',
    reason: 'in office hours',
    result: 'approved',
    dryRun: false,
  });
  const lines = await why('why-legacy', DEPLOYED);
  expect(lines.some((line) => line.includes(' approved '))).toBe(true);
  expect(lines.join('\n')).not.toMatch(/decided under|policy /);
});
