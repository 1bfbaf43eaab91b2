/**
 * createStateTable returns only once the table is ACTIVE. DynamoDB (and dynalite) answer
 * CreateTable while the table is still CREATING and refuse reads and writes to it meanwhile; the
 * local stack's emulator flips the status on a 0 ms timer, so under load a suite's first write
 * sometimes landed in that gap (ResourceNotFoundException). Here the gap is made long, as on AWS.
 */
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getItem, itemKey, putItem } from '../../src/state/dynamo.js';
import { createDynamoClient, createStateTable } from '../../src/state/table.js';

const server = dynalite({ createTableMs: 150 });

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

it('answers a write made right after it returns (the table is ACTIVE, not CREATING)', async () => {
  const client = createDynamoClient({
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
  const table = { client, tableName: 'ready-after-create' };
  await createStateTable(client, table.tableName);
  await putItem(table, { ...itemKey('ready#check', 'first'), written: { BOOL: true } });
  expect(await getItem(table, itemKey('ready#check', 'first'))).toMatchObject({ written: { BOOL: true } });
  client.destroy();
});
