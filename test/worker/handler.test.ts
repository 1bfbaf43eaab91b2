/**
 * The Lambda entry point itself (functions/worker.ts), wired only by environment variables, as
 * the stack wires it: the policy file is validated at import, and the handler approves through
 * the emulators and the sandbox.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { sendActionRequest } from '../../src/queue/actions-queue.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { lambdaContext, queueArn, receiveEvent } from '../helpers/lambda.js';

let emulators: Emulators;
let api: RunningSandbox;
const dir = mkdtempSync(join(tmpdir(), 'worker-handler-'));
const saved = { ...process.env };

beforeAll(async () => {
  emulators = await startEmulators();
  api = await startSandbox({ rateLimits: false });
  const policyFile = join(dir, 'policy.json');
  writeFileSync(
    policyFile,
    JSON.stringify({
      version: 1,
      approvals: { rules: [{ name: 'CI approves', when: { requesters: ['ci:*'] }, decision: 'approve' }] },
    }),
  );
  Object.assign(process.env, {
    AUTOPILOT_POLICY: policyFile,
    CONSOLE_API_BASE_URL: api.url,
    CONSOLE_API_KEY: 'sandbox-key',
    WEBHOOK_REQUESTER_KEY: 'test-webhook-key',
    SWEEPER_REQUESTER_KEY: 'test-sweeper-key',
    ACTIONS_QUEUE_URL: emulators.queueUrl,
    DLQ_URL: emulators.dlqUrl,
    STATE_TABLE_NAME: emulators.tableName,
    AWS_ENDPOINT_URL_SQS: emulators.sqsEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB: emulators.dynamodbEndpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LOG_LEVEL: 'warn',
  });
  delete process.env.AUTOPILOT_SECRET_ID;
});
afterAll(async () => {
  process.env = saved;
  await api?.close();
  await emulators?.stop();
});
beforeEach(() => {
  vi.resetModules();
});

describe('functions/worker.ts', () => {
  it('approves a request from the queue, configured by the environment alone', async () => {
    const { handler } = await import('../../functions/worker.js');
    await sendActionRequest(emulators.sqs, emulators.queueUrl, {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_2',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'deploy' },
      requestedAt: new Date().toISOString(),
    });
    const queue = { sqs: emulators.sqs, queueUrl: emulators.queueUrl };
    const event = await receiveEvent({ ...queue, arn: await queueArn(queue) });
    expect(await handler(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(api.sandbox.state.triggers.get('trg_2')?.currentPhaseID).toBe('ph_2');
  });

  it('puts the Lambda request id, the cold-start flag and the X-Ray trace id on every log line', async () => {
    process.env.LOG_LEVEL = 'info';
    process.env._X_AMZN_TRACE_ID =
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
    const { handler } = await import('../../functions/worker.js');
    const lines: Array<Record<string, unknown>> = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      return true;
    });
    const queue = { sqs: emulators.sqs, queueUrl: emulators.queueUrl };
    const contexts = [lambdaContext(), lambdaContext()];
    try {
      for (const [i, context] of contexts.entries()) {
        await sendActionRequest(emulators.sqs, emulators.queueUrl, {
          version: 1,
          action: 'approve_phase',
          triggerId: 'trg_3',
          phaseId: 'ph_9',
          requestedBy: { source: 'ci', id: 'deploy' },
          requestedAt: new Date().toISOString(),
          requestId: `invocation-${i}`,
        });
        const event = await receiveEvent({ ...queue, arn: await queueArn(queue) });
        await handler(event, context);
      }
    } finally {
      write.mockRestore();
      delete process.env._X_AMZN_TRACE_ID;
    }
    const logs = lines.filter((l) => typeof l.level === 'string');
    expect(logs.length).toBeGreaterThanOrEqual(2);
    for (const [i, context] of contexts.entries()) {
      const mine = logs.filter((l) => l.requestId === `invocation-${i}`);
      expect(mine.length).toBeGreaterThan(0);
      for (const line of mine) {
        expect(line).toMatchObject({
          awsRequestId: context.awsRequestId,
          coldStart: i === 0,
          traceId: '1-5759e988-bd862e3fe1be46a994272793',
        });
      }
    }
  });

  it('fails its start on an invalid policy, naming the zod path', async () => {
    const bad = join(dir, 'bad-policy.json');
    writeFileSync(
      bad,
      JSON.stringify({ version: 1, approvals: { rules: [{ name: 'x', when: {}, decision: 'maybe' }] } }),
    );
    process.env.AUTOPILOT_POLICY = bad;
    await expect(import('../../functions/worker.js')).rejects.toThrow(/approvals\.rules\[0\]\.decision/);
  });
});
