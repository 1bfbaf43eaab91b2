/**
 * A stand-in for Secrets Manager speaking its JSON protocol (`X-Amz-Target:
 * secretsmanager.GetSecretValue`), since no emulator exists: the functions' real SDK client
 * reads from it when `AWS_ENDPOINT_URL_SECRETS_MANAGER` points here. Values can be changed
 * (rotation) and every read is counted per secret.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSecretsManager {
  url: string;
  values: Map<string, string>;
  reads(secretId: string): number;
  close(): Promise<void>;
}

export async function startFakeSecretsManager(): Promise<FakeSecretsManager> {
  const values = new Map<string, string>();
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const target = req.headers['x-amz-target'];
      const { SecretId } = JSON.parse(body || '{}') as { SecretId?: string };
      const value = SecretId === undefined ? undefined : values.get(SecretId);
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target !== 'secretsmanager.GetSecretValue' || SecretId === undefined || value === undefined) {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'no such secret' }));
        return;
      }
      counts.set(SecretId, (counts.get(SecretId) ?? 0) + 1);
      res.end(JSON.stringify({ ARN: SecretId, Name: SecretId, SecretString: value, VersionId: 'v1' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    values,
    reads: (secretId) => counts.get(secretId) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
