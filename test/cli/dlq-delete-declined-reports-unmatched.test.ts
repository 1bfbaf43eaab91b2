/**
 * `dlq delete <id>… ` asks before it deletes; answered no, it printed `Nothing deleted.` (or
 * `{"deleted":[],"declined":true}` with --json) and dropped what it had found about the other ids:
 * an id not in the DLQ, or naming several messages, was no longer said, though every other outcome
 * (dry run, a done delete) reports them. An operator who declined because the list looked short
 * learned nothing of the id they mistyped; a script reading --json could not tell it either.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { captureIo } from '../helpers/cli-io.js';

let emulators: Emulators;
let messageId = '';
beforeAll(async () => {
  emulators = await startEmulators();
  const sent = await emulators.sqs.send(
    new SendMessageCommand({ QueueUrl: emulators.dlqUrl, MessageBody: '{"forged":true}' }),
  );
  messageId = sent.MessageId as string;
});
afterAll(async () => {
  await emulators?.stop();
});

function declining(json: boolean) {
  const run = captureIo({
    env: { DLQ_URL: emulators.dlqUrl, AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint, AWS_REGION: 'us-east-1' },
    confirm: async () => false,
  });
  return { run, args: ['dlq', 'delete', messageId, 'typo-id', ...(json ? ['--json'] : [])] };
}

describe('dlq delete, answered no', () => {
  it('still says which ids were not found (text)', async () => {
    const { run, args } = declining(false);
    expect(await runCli(args, run.io)).toBe(1);
    expect(run.out()).toContain('Nothing deleted.');
    expect(run.out()).toContain('not found in the DLQ (or another reader holds it now): typo-id');
  });

  it('still says which ids were not found (--json)', async () => {
    const { run, args } = declining(true);
    expect(await runCli(args, run.io)).toBe(1);
    expect(JSON.parse(run.out())).toEqual({
      deleted: [],
      declined: true,
      notFound: ['typo-id'],
      ambiguous: [],
    });
  });
});
