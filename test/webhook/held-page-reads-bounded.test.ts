/**
 * What one page of `/autopilot held` reads from the state table while a long pause holds thousands
 * of requests. The page was cut from the whole held partition, read for every page (a projection,
 * but DynamoDB bills and returns each item it reads: 3,000 items for 10 rows, and the 2.5 s reply
 * deadline against a partition that grows with the pause). A page now reads about its own rows
 * from the cursor, plus the capped count `status` reads.
 */
import {
  type AttributeValue,
  BatchWriteItemCommand,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { KEEP_DAYS } from '../../src/state/held.js';
import { HELD_COUNT_CAP } from '../../src/state/held-count.js';
import { heldItemKey } from '../../src/state/held-marks.js';
import { expiresAfterDays, type StateTable } from '../../src/state/table.js';
import { heldAccess } from '../../src/webhook/held.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const { table } = emulatorsForFile();
const NOW = new Date('2026-11-23T20:00:00Z');
const HELD = 3_000;
const id = (n: number) => `paused-${String(n).padStart(5, '0')}`;

/** The item `holdRequest` writes for a request held by a pause (written in batches: thousands of them). */
function heldItem(requestId: string): Record<string, AttributeValue> {
  const request = {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
    requestedAt: '2026-11-23T19:00:00.000Z',
    requestId,
  };
  return {
    ...heldItemKey(requestId),
    requestId: { S: requestId },
    action: { S: 'approve_phase' },
    target: { S: 'trigger trg_1 phase ph_1' },
    requester: { S: 'ci:github-actions/deploy.yml' },
    why: { S: 'paused' },
    rule: { S: 'pause' },
    reason: { S: 'automation is paused' },
    since: { S: '2026-11-23T19:00:00.000Z' },
    request: { S: JSON.stringify(request) },
    expiresAt: { N: String(expiresAfterDays(NOW, KEEP_DAYS)) },
  };
}

beforeAll(async () => {
  for (let i = 0; i < HELD; i += 25) {
    const batch = [];
    for (let j = i; j < Math.min(HELD, i + 25); j++) batch.push({ PutRequest: { Item: heldItem(id(j)) } });
    await table.client.send(new BatchWriteItemCommand({ RequestItems: { [table.tableName]: batch } }));
  }
}, 60_000);

/** The table, counting the items each read returns to the webhook (a Query's scanned items, a GetItem's one). */
function countingTable(): { table: StateTable; read: () => number } {
  let read = 0;
  const counted: StateTable = {
    tableName: table.tableName,
    client: {
      send: (async (command: unknown) => {
        const out = await table.client.send(command as QueryCommand);
        if (command instanceof QueryCommand) read += out.ScannedCount ?? out.Items?.length ?? 0;
        if (command instanceof GetItemCommand && 'Item' in out && out.Item) read += 1;
        return out;
      }) as StateTable['client']['send'],
    },
  };
  return { table: counted, read: () => read };
}

async function held(text: string): Promise<{ shown: string; read: number }> {
  const counting = countingTable();
  const now = NOW.getTime() + 60_000;
  const { app } = buildApp({ held: heldAccess(counting.table), now: () => now });
  const response = await app.request(
    signedRequest('/slack/commands', commandBody({ text }), { timestamp: now / 1000 }),
  );
  expect(response.status).toBe(200);
  return { shown: JSON.stringify(await response.json()), read: counting.read() };
}

describe('/autopilot held with thousands held', () => {
  it('reads about one page of held items for a page, not every held item', async () => {
    // A page of ten reads the eleventh (is there a next page?) and the count's 51 (50+).
    const bound = 10 + 1 + HELD_COUNT_CAP + 1;
    const first = await held('held');
    expect(first.read).toBeLessThanOrEqual(bound);
    expect(first.shown).toContain(id(0));
    expect(first.shown).toContain('50+ held');

    const later = await held(`held after ${id(1_499)}`);
    expect(later.shown).toContain(id(1_500));
    expect(later.shown).toContain(`held after ${id(1_509)}`);
    expect(later.read).toBeLessThanOrEqual(bound);
  });
});
