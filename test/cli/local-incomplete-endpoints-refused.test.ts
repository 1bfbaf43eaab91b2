/**
 * `--local` must never reach AWS. An endpoints file counts as a stack's when it has `webhookUrl`
 * (src/local/endpoints.ts), but the commands then took the emulator endpoints from it as they came:
 * a file without `dynamodbEndpoint`/`tableName` (or `sqsEndpoint`/`dlqUrl`: written by an older
 * version or another tool, or edited by hand) left the SDK client without an endpoint, and
 * `held --local`, `dlq list --local`, `audit --local`, `cancel --local` sent their calls to the AWS
 * the shell is configured for, with its credentials ("cannot read the held requests of undefined").
 * Here the shell's AWS is a recorder (AWS_ENDPOINT_URL_DYNAMODB / _SQS, honoured by the SDK for a
 * client without an endpoint of its own): it must receive nothing, and the command must say the
 * file lacks the endpoint it needs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const NAMES = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SQS',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
];
let saved: Record<string, string | undefined>;
let server: Server;
const calls: string[] = [];
let dir: string;
let endpointsFile: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    calls.push(String(request.headers['x-amz-target'] ?? request.url));
    response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
    response.end('{"__type":"com.amazonaws#ValidationException","message":"reached the shell’s AWS"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const awsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: awsUrl,
    AWS_ENDPOINT_URL_SQS: awsUrl,
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEONLY',
    AWS_SECRET_ACCESS_KEY: 'example-only',
  });
  dir = mkdtempSync(join(tmpdir(), 'autopilot-review-cli-endpoints-'));
  endpointsFile = join(dir, 'endpoints.json');
  writeFileSync(endpointsFile, JSON.stringify({ webhookUrl: 'http://127.0.0.1:9' }));
  writeFileSync(join(dir, 'policy.json'), '{}');
});
afterAll(async () => {
  for (const n of NAMES) {
    if (saved?.[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('--local with an endpoints file that lacks the emulator endpoints', () => {
  it.each([
    [['held', '--local'], 'dynamodbEndpoint'],
    [['audit', '--since', '24h', '--local'], 'dynamodbEndpoint'],
    [['dlq', 'list', '--local'], 'sqsEndpoint'],
    [['dlq', 'delete', 'm-1', '--yes', '--local'], 'sqsEndpoint'],
  ])('%j calls no AWS and names what the file lacks', async (args, missing) => {
    calls.length = 0;
    const run = captureIo({ env: { AUTOPILOT_ENDPOINTS_FILE: endpointsFile }, cwd: dir });
    const code = await runCli(args, run.io);
    expect(calls).toEqual([]);
    expect(code).toBe(1);
    expect(run.err()).toContain(endpointsFile);
    expect(run.err()).toContain(missing);
  });
});
