/**
 * The internet-facing webhook's table grants (infra/table-grants.ts) gave it GetItem and PutItem
 * on its own partitions together, so it could also read every veto (`veto#*`), which it never
 * does: a person's Deny is written (PutItem) and only the worker reads it, with the request's
 * state. This drives every webhook path that touches the table, `why` included (the audit trail,
 * read only), and checks that each action granted on each partition is one the webhook uses,
 * as the worker's and the sweeper's item tests do for theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_TABLE_GRANTS } from '../../infra/table-grants.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import type { StateTable } from '../../src/state/table.js';
import { recordingClient, refused, type TableRequest, unused } from './table-requests.js';
import { driveWebhookPaths } from './webhook-paths.js';

let emu: Emulators;
let table: StateTable;
const requests: TableRequest[] = [];

beforeAll(async () => {
  emu = await startEmulators();
  table = { client: recordingClient(emu.dynamo, requests), tableName: emu.tableName };
});
afterAll(async () => {
  await emu?.stop();
});

describe("the webhook's table grants", () => {
  it('hold no action on a partition that no webhook path uses', async () => {
    await driveWebhookPaths(emu, table, { label: 'grants', auditReads: true });

    expect(refused(requests, WEBHOOK_TABLE_GRANTS)).toEqual([]);
    expect(unused(requests, WEBHOOK_TABLE_GRANTS)).toEqual([]);
  });
});
