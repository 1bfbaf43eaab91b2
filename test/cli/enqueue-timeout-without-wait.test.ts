/**
 * Review s32: `enqueue approve … --timeout 20m` without `--wait` (a pipeline that meant to gate and
 * forgot the flag) sent the request and exited 0 at once: the deploy step after it ran before any
 * outcome, as if approved. `--timeout` (and `--table`) only mean something with `--wait`: a usage
 * error, before anything is sent. Fauxqs and dynalite; the CLI in process.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';
import { emulatorsForFile } from '../helpers/emulators.js';

const { emu } = emulatorsForFile();

it.each([[['--timeout', '20m']], [['--table', 'autopilot-state']]])(
  '%j without --wait is a usage error, and nothing is sent',
  async (extra) => {
    const io = captureIo({
      env: { AWS_ENDPOINT_URL_SQS: emu.sqsEndpoint, AWS_ENDPOINT_URL_DYNAMODB: emu.dynamodbEndpoint },
    });
    const args = ['enqueue', 'approve', 'trg_5', 'ph_2', '--requested-by', 'ci:deploy'];
    const code = await runCli([...args, '--queue-url', emu.queueUrl, ...extra], io.io);
    expect(code, io.err()).not.toBe(0);
    expect(io.err()).toContain('--wait');
    const { Messages } = await emu.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: emu.queueUrl, WaitTimeSeconds: 0 }),
    );
    expect(Messages ?? []).toEqual([]);
  },
);
