import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretsManagerProvider } from '../../src/secrets/secrets.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

/** A tiny stand-in for Secrets Manager's JSON protocol (no emulator exists in the registry). */
let server: Server;
let endpoint: string;
let signingSecret = 'first-secret';
let reads = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.headers['x-amz-target'] !== 'secretsmanager.GetSecretValue') {
        res.writeHead(400).end();
        return;
      }
      reads++;
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(
        JSON.stringify({
          ARN: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:autopilot-AbCdEf',
          Name: 'autopilot',
          VersionId: `v${reads}`,
          SecretString: JSON.stringify({ consoleApiKey: 'sandbox-key', slackSigningSecret: signingSecret }),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe('signing secret rotation through Secrets Manager', () => {
  it('picks up a rotated secret after a failed verification, re-reading at most once a minute', async () => {
    let clock = Date.parse('2026-11-22T03:00:00Z');
    const client = new SecretsManagerClient({
      endpoint,
      region: 'eu-central-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const secrets = secretsManagerProvider({ secretId: 'autopilot', client, now: () => clock });
    const { app } = buildApp({ secrets });
    const send = async (secret: string) =>
      (await app.request(signedRequest('/slack/commands', commandBody({ text: 'help' }), { secret }))).status;

    expect(await send('first-secret')).toBe(200);
    expect(reads).toBe(1);

    signingSecret = 'second-secret';
    clock += 10_000;
    // Within a minute of the last read the provider refuses to re-read: the new signature still fails.
    expect(await send('second-secret')).toBe(401);
    for (let i = 0; i < 20; i++) expect(await send('forged')).toBe(401);
    expect(reads).toBe(1);

    clock += 60_000;
    expect(await send('second-secret')).toBe(200);
    expect(reads).toBe(2);
    expect(await send('first-secret')).toBe(401);
    expect(reads).toBe(2);
    client.destroy();
  });
});
