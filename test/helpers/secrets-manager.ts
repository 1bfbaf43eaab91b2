/**
 * A stand-in for Secrets Manager speaking its JSON protocol (`X-Amz-Target:
 * secretsmanager.GetSecretValue`), since no emulator exists: the functions' real SDK client
 * reads from it when `AWS_ENDPOINT_URL_SECRETS_MANAGER` points here. Values can be changed
 * (rotation) and every read is counted per secret. Setting a value makes it the AWSCURRENT
 * version, created at `now()`, and the one before AWSPREVIOUS, as `put-secret-value` does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSecretsManager {
  url: string;
  values: Map<string, string>;
  reads(secretId: string): number;
  close(): Promise<void>;
}

/** The current values, with each secret's previous one and when its current one was created. */
class VersionedValues extends Map<string, string> {
  readonly previous = new Map<string, string>();
  readonly createdAt = new Map<string, number>();
  constructor(private readonly now: () => number) {
    super();
  }
  override set(secretId: string, value: string): this {
    const current = super.get(secretId);
    if (current !== undefined && current !== value) this.previous.set(secretId, current);
    this.createdAt?.set(secretId, this.now());
    return super.set(secretId, value);
  }
}

export async function startFakeSecretsManager(
  options: { now?: () => number } = {},
): Promise<FakeSecretsManager> {
  const values = new VersionedValues(options.now ?? Date.now);
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const target = req.headers['x-amz-target'];
      const { SecretId, VersionStage } = JSON.parse(body || '{}') as {
        SecretId?: string;
        VersionStage?: string;
      };
      const previous = VersionStage === 'AWSPREVIOUS';
      const value =
        SecretId === undefined ? undefined : previous ? values.previous.get(SecretId) : values.get(SecretId);
      res.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target !== 'secretsmanager.GetSecretValue' || SecretId === undefined || value === undefined) {
        res.statusCode = 400;
        res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'no such secret' }));
        return;
      }
      counts.set(SecretId, (counts.get(SecretId) ?? 0) + 1);
      const created = previous ? undefined : values.createdAt.get(SecretId);
      res.end(
        JSON.stringify({
          ARN: SecretId,
          Name: SecretId,
          SecretString: value,
          VersionId: previous ? 'v-previous' : 'v-current',
          VersionStages: [previous ? 'AWSPREVIOUS' : 'AWSCURRENT'],
          ...(created === undefined ? {} : { CreatedDate: created / 1000 }),
        }),
      );
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
