/**
 * An exported but empty AWS_REGION (`export AWS_REGION=` in a shell profile) is no region: the
 * local stack, the CLI and the tests fall back to us-east-1 as when it is unset. It was taken as
 * given, and `npm start` failed with the SDK's "Region is missing", naming no variable.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { localAwsConfig } from '../../src/config/aws.js';
import { createLambdaContext } from '../../src/local/lambda-context.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

it('an empty AWS_REGION counts as unset', () => {
  vi.stubEnv('AWS_REGION', '');
  // The local stack and the CLI's --local always name the emulator's endpoint.
  expect(localAwsConfig({ endpoint: 'http://127.0.0.1:1' }).region).toBe('us-east-1');
  expect(
    createLambdaContext({ functionName: 'autopilot-worker', timeoutMs: 1_000 }).invokedFunctionArn,
  ).toContain(':us-east-1:');
  vi.stubEnv('AWS_REGION', 'eu-central-1');
  expect(localAwsConfig({ endpoint: 'http://127.0.0.1:1' }).region).toBe('eu-central-1');
  expect(localAwsConfig({}).region).toBe('eu-central-1');
});
