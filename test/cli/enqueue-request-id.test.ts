/**
 * README "Operations": the saved query "one request by id" finds a request's whole story by "the
 * id a chat reply or `enqueue` printed". `enqueue` without `--request-id` printed only the SQS
 * message id, while every line the worker writes about that request (and its metrics, audit and
 * held copies) carries `requestId: "sqs:<message id>"`: the query, run with the printed id, found
 * nothing. The command must name the request id the logs use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { captureIo } from '../helpers/cli-io.js';

let emulators: Emulators;
beforeAll(async () => {
  emulators = await startEmulators({ queueName: 'review-ops-enqueue' });
});
afterAll(async () => {
  await emulators?.stop();
});

async function enqueue(extra: string[]) {
  const io = captureIo({
    env: {
      AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    },
  });
  const code = await runCli(
    [
      'enqueue',
      'approve',
      'trg_1',
      'ph_1',
      '--queue-url',
      emulators.queueUrl,
      '--requested-by',
      'ci:deploy',
      ...extra,
    ],
    io.io,
  );
  return { code, out: io.out().trim(), err: io.err() };
}

describe('enqueue names the request id the logs and the saved query use', () => {
  it('without --request-id: sqs:<the message id it prints>', async () => {
    const { code, out, err } = await enqueue([]);
    expect(code, err).toBe(0);
    // stdout stays the message id alone (the documented contract for scripts).
    expect(out).toMatch(/^[\w-]+$/);
    expect(err).toContain(`request id sqs:${out}`);
  });

  it('with --request-id: that id', async () => {
    const { code, out, err } = await enqueue(['--request-id', 'deploy-42-ph_1']);
    expect(code, err).toBe(0);
    expect(out).toMatch(/^[\w-]+$/);
    expect(err).toContain('request id deploy-42-ph_1');
  });
});
