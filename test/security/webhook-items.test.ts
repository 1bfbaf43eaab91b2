/**
 * The webhook's table access is limited by IAM to a few partition keys (`dynamodb:LeadingKeys`,
 * asserted on the template in least-privilege.test.ts). This drives every webhook path that
 * touches the table against dynalite and checks that each item it reads or writes is one of
 * them, so a new webhook feature that needs more fails here rather than with AccessDenied
 * after a deploy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_TABLE_GRANTS } from '../../infra/table-grants.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import {
  type StateTable,
  WEBHOOK_HELD_PARTITION_KEYS,
  WEBHOOK_PARTITION_KEYS,
  WEBHOOK_READ_PARTITION_KEYS,
} from '../../src/state/table.js';
import { recordingClient, refused, type TableRequest } from './table-requests.js';
import { driveWebhookPaths } from './webhook-paths.js';

let emu: Emulators;
const touched: string[] = [];
let table: StateTable;

const requests: TableRequest[] = [];

beforeAll(async () => {
  emu = await startEmulators();
  const client = recordingClient(emu.dynamo, requests, async (request) => {
    touched.push(...request.pks);
  });
  table = { client, tableName: emu.tableName };
});
afterAll(async () => {
  await emu?.stop();
});

const allowed = [
  ...WEBHOOK_PARTITION_KEYS,
  ...WEBHOOK_HELD_PARTITION_KEYS,
  ...WEBHOOK_READ_PARTITION_KEYS,
].map((pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`));

describe("the webhook's table items", () => {
  it('are only those its IAM policy names, on every path that touches the table', async () => {
    await driveWebhookPaths(emu, table, { label: 'items' });

    const families = new Set(touched.map((pk) => pk.split('#')[0]));
    // Every kind of item the webhook owns was exercised, or this test would prove little; it reads
    // a request's ending (audit) when its cancel may have come after that end (held.ts).
    expect([...families].sort()).toEqual(['audit', 'control', 'held', 'queued', 'veto']);
    expect(touched.filter((pk) => !allowed.some((re) => re.test(pk)))).toEqual([]);
    // And each request as IAM weighs it against the webhook's statements (held marks: only their attributes).
    expect(refused(requests, WEBHOOK_TABLE_GRANTS)).toEqual([]);
  });
});
