/**
 * README "Prerequisites": "Region ... Set it for every command below: `export AWS_REGION=eu-west-1`
 * (or your profile's region)". The CLI's state-table and queue commands (`held`, `audit`,
 * `cancel`, `policy replay`, `enqueue`, `dlq …`) built their AWS clients with
 * `AWS_REGION || 'us-east-1'`: an operator whose region lives in their AWS profile (as
 * `aws configure` writes it, and as `cdk deploy` used it) talked to us-east-1, where the table
 * is not, while `sweep --dry-run` (the functions' wiring) used the profile's region. An emulator
 * (an explicit endpoint) still gets a region without any configuration.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { stateTableFor } from '../../src/cli/state-table.js';
import { createSqsClient } from '../../src/queue/actions-queue.js';
import { createDynamoClient } from '../../src/state/table.js';

const NAMES = [
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'AWS_CONFIG_FILE',
  'AWS_SHARED_CREDENTIALS_FILE',
];
let saved: Record<string, string | undefined>;
let dir: string;

beforeEach(() => {
  saved = Object.fromEntries(NAMES.map((n) => [n, process.env[n]]));
  for (const n of NAMES) delete process.env[n];
  dir = mkdtempSync(join(tmpdir(), 'autopilot-journey-region-'));
  writeFileSync(join(dir, 'config'), '[default]\nregion = eu-west-1\n');
  writeFileSync(join(dir, 'credentials'), '');
  process.env.AWS_CONFIG_FILE = join(dir, 'config');
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'credentials');
});

afterEach(() => {
  for (const n of NAMES) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
  rmSync(dir, { recursive: true, force: true });
});

const io = { env: { STATE_TABLE_NAME: 'ConsoleAutopilot-StateTable' } } as unknown as CliIo;

describe("the CLI's AWS region without AWS_REGION", () => {
  it("is the profile's region for the state table (held, audit, cancel, replay, enqueue --wait)", async () => {
    const { client } = stateTableFor(io, {}, 'usage') as unknown as {
      client: { config: { region: () => Promise<string> } };
    };
    expect(await client.config.region()).toBe('eu-west-1');
  });

  it("is the profile's region for the queues (enqueue, dlq list/redrive/delete)", async () => {
    expect(await createSqsClient({}).config.region()).toBe('eu-west-1');
  });

  it('AWS_REGION still wins', async () => {
    process.env.AWS_REGION = 'ap-southeast-2';
    expect(await createDynamoClient({}).config.region()).toBe('ap-southeast-2');
  });

  it('an emulator endpoint without any region configured still works (us-east-1)', async () => {
    delete process.env.AWS_CONFIG_FILE;
    process.env.AWS_CONFIG_FILE = join(dir, 'none');
    expect(await createSqsClient({ endpoint: 'http://127.0.0.1:1' }).config.region()).toBe('us-east-1');
  });
});
