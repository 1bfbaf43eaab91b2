/**
 * End to end on the local stack (the real handlers from functions/, fauxqs, dynalite, the
 * sandbox): a `slack:` request put on the queue by a plain SQS client outside the stack is
 * refused ("requester not proven: …", audited, nothing mutated), while the webhook's own is
 * executed; the CLI cannot speak for a person, and its `ci:` requests are decided as usual.
 * The policy is the shipped one without its freeze, so nothing here depends on the date.
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { sendSigned, signedSlashCommand } from '../../src/local/sign.js';
import type { LocalStack } from '../../src/local/stack.js';
import { createSqsClient, sqsSafeJson } from '../../src/queue/actions-queue.js';
import { readAudit, type StoredAuditRecord } from '../../src/state/audit.js';
import { bootTestStack, canaryTriggers, type TestStack } from '../helpers/local-stack.js';

let t: TestStack;
let stack: LocalStack;

beforeAll(async () => {
  t = await bootTestStack('requesters');
  stack = t.stack;
});
afterAll(async () => {
  await t?.stop();
});

const table = () => ({ client: stack.emulators.dynamo, tableName: stack.endpoints.tableName });

/** The audit trail of a request once the worker has written it (polls a bounded number of times). */
async function auditOf(requestId: string): Promise<StoredAuditRecord[]> {
  for (let i = 0; i < 100; i++) {
    const records = await readAudit(table(), requestId);
    if (records.length > 0) return records;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no audit record for ${requestId}`);
}

describe('requesters on the local stack', () => {
  it("executes the webhook's own chat request", async () => {
    const phase = stack.sandbox?.state.triggers.get('trg_7')?.currentPhaseID;
    const response = await sendSigned(
      signedSlashCommand(stack.endpoints.webhookUrl, stack.signingSecret, {
        text: `approve trg_7 ${phase} from the requesters test`,
        userId: 'U0ADMIN',
        teamId: 'T0001',
        responseUrl: stack.receiver.responseUrl('requesters-approve'),
      }),
    );
    const text = ((await response.json()) as { text: string }).text;
    const requestId = /Request id (slack-[0-9a-f]+)/.exec(text)?.[1];
    expect(requestId, text).toBeDefined();
    await stack.receiver.waitFor((p) => p.path === '/response/requesters-approve', 15_000);
    const [record] = await auditOf(requestId as string);
    expect(record).toMatchObject({ result: 'approved', requester: 'slack:U0ADMIN' });
    expect(stack.sandbox?.state.triggers.get('trg_7')?.currentPhaseID).not.toBe(phase);
  });

  it('answers reads in the webhook with a Console key that cannot mutate, as deployed', async () => {
    const response = await sendSigned(
      signedSlashCommand(stack.endpoints.webhookUrl, stack.signingSecret, {
        text: 'segments',
        userId: 'U0SOMEONE',
        teamId: 'T0001',
        responseUrl: stack.receiver.responseUrl('requesters-read'),
      }),
    );
    expect(((await response.json()) as { text: string }).text).toMatch(/segment/i);
    const readOnly = stack.env.CONSOLE_READ_ONLY_API_KEY;
    expect(readOnly).toBeDefined();
    const write = await fetch(
      `${stack.endpoints.consoleApiBaseUrl}/console/v1/release_pipeline_triggers/trg_1/approve`,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'SERVICE-API-KEY': readOnly as string },
        body: JSON.stringify({ phaseID: 'ph_1' }),
      },
    );
    expect(write.status).toBe(403);
  });

  it('refuses the same kind of request sent by a plain SQS client: DLQ with the reason, audited, nothing archived', async () => {
    // An outside process: its own client, only what .local/endpoints.json tells it.
    const outsider = createSqsClient({ endpoint: stack.endpoints.sqsEndpoint });
    try {
      await outsider.send(
        new SendMessageCommand({
          QueueUrl: stack.endpoints.queueUrl,
          MessageBody: sqsSafeJson({
            version: 1,
            action: 'archive_config',
            configId: 'new_checkout_copy',
            reason: 'forged',
            requestedBy: { source: 'slack', id: 'U0ADMIN' },
            requestedAt: new Date().toISOString(),
            requestId: 'outsider-forged-1',
          }),
        }),
      );
      const { Messages = [] } = await outsider.send(
        new ReceiveMessageCommand({
          QueueUrl: stack.endpoints.dlqUrl,
          WaitTimeSeconds: 15,
          MessageAttributeNames: ['All'],
        }),
      );
      expect(Messages).toHaveLength(1);
      expect(Messages[0]?.MessageAttributes?.error?.StringValue).toBe(
        'requester not proven: slack requests are accepted only from the webhook; this message carries no proof',
      );
    } finally {
      outsider.destroy();
    }
    const [record] = await auditOf('outsider-forged-1');
    expect(record).toMatchObject({
      result: 'dead-lettered',
      rule: 'requester-not-proven',
      requester: 'unproven slack:U0ADMIN',
    });
    expect(stack.sandbox?.state.configs.get('new_checkout_copy')?.archived).toBe(false);
    expect(stack.sandbox?.requests.some((r) => r.path.endsWith('/new_checkout_copy/archive'))).toBe(false);
  });

  it('lets the CLI send ci requests only, and decides them by the policy', async () => {
    const io = {
      stdout: () => undefined,
      stderr: () => undefined,
      env: t.cliEnv,
      cwd: t.dir,
      now: () => new Date(),
    };
    expect(
      await runCli(['enqueue', 'approve', 'trg_9', 'ph_1', '--local', '--requested-by', 'slack:U0ADMIN'], io),
    ).toBe(2);
    // A trigger whose current phase is the canary, so an approval is not stale, whatever the hour.
    const [canary = 'none'] = canaryTriggers(stack);
    const args = ['enqueue', 'approve', canary, 'ph_1', '--local', '--request-id', 'cli-ci-1'];
    expect(await runCli([...args, '--requested-by', 'ci:release/deploy'], io)).toBe(0);
    const [record] = await auditOf('cli-ci-1');
    // Approved in office hours, deferred outside them (the local stack runs on the wall clock):
    // either way decided by the rule for ci requesters, never refused.
    expect(record?.rule).toBe('CI promotes any phase in office hours');
    expect(['approved', 'deferred']).toContain(record?.result);
  });
});
