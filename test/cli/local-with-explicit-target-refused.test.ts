/**
 * Every command that takes `--local` documents it as exclusive with naming the target itself:
 * `[--local | --table NAME]`, `[--local | --dlq-url URL]`, `[--local | --dlq-url URL --queue-url URL]`
 * (README, each command's usage), as `stats` refuses `--local --file`. Given both, the commands
 * silently used the local stack's table or queues: `dlq delete <id> --yes --local --dlq-url <url>`
 * deleted from the local stack's DLQ and said "Deleted 1 message(s)" (exit 0) while the operator
 * named another queue, and `cancel --local --table NAME` cancelled in the local table. Both must be
 * a usage error (exit 2) that touches nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { receiveAll, release } from '../../src/queue/dead-letters.js';
import { captureIo } from '../helpers/cli-io.js';

let emulators: Emulators;
let dir: string;
let otherDlqUrl: string;
let env: Record<string, string>;

beforeAll(async () => {
  emulators = await startEmulators();
  dir = mkdtempSync(join(tmpdir(), 'autopilot-review-cli-local-'));
  const endpointsFile = join(dir, 'endpoints.json');
  writeFileSync(
    endpointsFile,
    JSON.stringify({
      webhookUrl: 'http://127.0.0.1:9',
      consoleApiBaseUrl: 'http://127.0.0.1:9',
      sqsEndpoint: emulators.sqsEndpoint,
      queueUrl: emulators.queueUrl,
      dlqUrl: emulators.dlqUrl,
      dynamodbEndpoint: emulators.dynamodbEndpoint,
      tableName: emulators.tableName,
      slackReceiverUrl: 'http://127.0.0.1:9',
    }),
  );
  const other = await emulators.sqs.send(new CreateQueueCommand({ QueueName: 'other-dlq' }));
  otherDlqUrl = other.QueueUrl as string;
  env = { AUTOPILOT_ENDPOINTS_FILE: endpointsFile, AWS_REGION: 'us-east-1' };
});
afterAll(async () => {
  await emulators?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function countIn(url: string): Promise<number> {
  const letters = await receiveAll(emulators.sqs, url, { holdSeconds: 5 });
  await release(emulators.sqs, url, letters);
  return letters.length;
}

describe('--local beside a named table or queue', () => {
  it('dlq delete --local --dlq-url is a usage error and deletes nothing', async () => {
    const sent = await emulators.sqs.send(
      new SendMessageCommand({ QueueUrl: emulators.dlqUrl, MessageBody: '{"not":"a request"}' }),
    );
    const run = captureIo({ env });
    const code = await runCli(
      ['dlq', 'delete', sent.MessageId as string, '--yes', '--local', '--dlq-url', otherDlqUrl],
      run.io,
    );
    expect(code, run.out()).toBe(2);
    expect(run.err()).toContain('--local');
    expect(await countIn(emulators.dlqUrl)).toBe(1);
  });

  it('dlq redrive --local --queue-url is a usage error', async () => {
    const run = captureIo({ env });
    const code = await runCli(
      ['dlq', 'redrive', '--all', '--dry-run', '--local', '--queue-url', emulators.queueUrl],
      run.io,
    );
    expect(code, run.out()).toBe(2);
  });

  it.each([
    [['held', '--local', '--table', 'prod-state']],
    [['audit', '--since', '24h', '--local', '--table', 'prod-state']],
    [['cancel', 'req-1', '--reason', 'x', '--as', 'alice', '--local', '--table', 'prod-state']],
    [['policy', 'replay', '--policy', 'policy.json', '--local', '--table', 'prod-state']],
  ])('%j is a usage error', async (args) => {
    const run = captureIo({ env, cwd: process.cwd() });
    const code = await runCli(args, run.io);
    expect(code, `${run.out()}\n${run.err()}`).toBe(2);
    expect(run.err()).toContain('--local');
  });

  it('enqueue --local --queue-url is a usage error and sends nothing', async () => {
    const run = captureIo({ env });
    const code = await runCli(
      [
        'enqueue',
        'approve',
        'trg_1',
        'ph_1',
        '--local',
        '--queue-url',
        'https://sqs.eu-west-1.amazonaws.com/1/q',
      ],
      run.io,
    );
    expect(code, run.out()).toBe(2);
    expect(run.out()).toBe('');
    expect(await countIn(emulators.queueUrl)).toBe(0);
  });
});
