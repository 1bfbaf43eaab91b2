/**
 * The release tick sees every held request, however much is held. The held partition was read
 * with `maxPages: 100` (`listHeld`, src/state/held-keep.ts), and a Query page is at most 1 MB, so
 * whatever was held past the first 100 MB, in request-id order, was silently left out: the tick
 * never sent it back (nor kept its TTL through a pause), `held` did not list it. A request body may
 * be ~12 KB (50 group names of 200 characters, a 2,000-character reason): about 8,500 held requests
 * fill 100 pages. The tick now pages a projection without bodies (no page cap) and reads the body
 * of only what it acts on: here one request, not 8,500 (~100 MB) in a 256 MB worker.
 */
import { type AttributeValue, BatchWriteItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { createLogger } from '../../src/observability/logger.js';
import { holdRequest, KEEP_DAYS, listHeld, readHeld } from '../../src/state/held.js';
import { listHeldPage } from '../../src/state/held-list.js';
import { heldItemKey } from '../../src/state/held-marks.js';
import { writePause } from '../../src/state/pause.js';
import { expiresAfterDays } from '../../src/state/table.js';
import { releaseHeld } from '../../src/worker/release.js';
import { emulatorsForFile } from '../helpers/emulators.js';

const { emu, table } = emulatorsForFile();
const NOW = new Date('2026-11-23T20:00:00Z');
const LATER = '2026-11-30T09:00:00.000Z';

/** A valid disable_groups request as large as the schema lets it be (50 × 200-character names, a 2,000-character reason). */
function bigRequest(requestId: string): ActionRequest {
  return {
    version: 1,
    action: 'disable_groups',
    experimentId: 'exp_checkout',
    groupNames: Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, '0')}-${'g'.repeat(197)}`),
    requestedBy: { source: 'ci', id: 'release-bot' },
    requestedAt: '2026-11-23T19:00:00.000Z',
    reason: 'r'.repeat(2000),
    requestId,
  };
}

/** The item `holdRequest` writes for a request outside its window (written in batches: thousands of them). */
function heldItem(requestId: string): Record<string, AttributeValue> {
  return {
    ...heldItemKey(requestId),
    requestId: { S: requestId },
    action: { S: 'disable_groups' },
    target: { S: 'experiment exp_checkout' },
    requester: { S: 'ci:release-bot' },
    why: { S: 'window' },
    rule: { S: 'CI in office hours' },
    reason: { S: 'outside the windows' },
    since: { S: '2026-11-23T19:00:00.000Z' },
    request: { S: JSON.stringify(bigRequest(requestId)) },
    expiresAt: { N: String(expiresAfterDays(NOW, KEEP_DAYS)) },
    nextLook: { S: LATER },
  };
}

const WAITING = 8_500;
const deps = () => ({
  table,
  sqs: emu.sqs,
  queueUrl: emu.queueUrl,
  logger: createLogger({ service: 'release', sink: () => {} }),
});

beforeAll(async () => {
  for (let i = 0; i < WAITING; i += 25) {
    const batch = [];
    for (let j = i; j < Math.min(WAITING, i + 25); j++)
      batch.push({ PutRequest: { Item: heldItem(`wait-${String(j).padStart(5, '0')}`) } });
    await table.client.send(new BatchWriteItemCommand({ RequestItems: { [table.tableName]: batch } }));
  }
}, 60_000);

it('the release tick sends back a due request held behind 100 MB of other held requests', async () => {
  // Its wait is over: its next look came. Its id sorts after the others'.
  const due = bigRequest('zz-due');
  await holdRequest(
    table,
    {
      requestId: 'zz-due',
      action: 'disable_groups',
      target: 'experiment exp_checkout',
      requester: 'ci:release-bot',
      why: 'window',
      rule: 'CI in office hours',
      reason: 'outside the windows',
      since: '2026-11-23T19:30:00.000Z',
      nextLook: '2026-11-23T19:59:00.000Z',
      request: due,
    },
    NOW,
  );

  const summary = await releaseHeld(deps(), NOW);
  expect(summary.released).toEqual(['zz-due']);
  expect(summary.held).toBe(WAITING + 1);
  // The body of the one it sent back, not those of the 8,500 it only listed.
  expect(summary.bodiesRead).toBe(1);
  expect(summary.left).toBe(0);
  expect((await listHeld(table)).length).toBe(WAITING + 1);
  // `/autopilot held`'s last page, after the last of the others: the one that sorts last, and no next.
  const last = await listHeldPage(table, 10, `wait-${String(WAITING - 1).padStart(5, '0')}`);
  expect(last).toEqual({ rows: [expect.objectContaining({ requestId: 'zz-due' })] });
}, 60_000);

it('through a pause the tick keeps alive a held request behind 100 MB of others', async () => {
  // Held long ago: its TTL is a day away, and its id sorts after the others'.
  await table.client.send(
    new BatchWriteItemCommand({
      RequestItems: {
        [table.tableName]: [
          {
            PutRequest: {
              Item: {
                ...heldItem('zz-expiring'),
                why: { S: 'paused' },
                expiresAt: { N: String(expiresAfterDays(NOW, 1)) },
              },
            },
          },
        ],
      },
    }),
  );
  await writePause(table, { paused: true, by: 'slack:U0ADMIN', at: NOW });

  const summary = await releaseHeld(deps(), NOW);
  expect(summary.paused).toBe(true);
  expect(summary.released).toEqual([]);
  expect(summary.bodiesRead).toBe(0);
  expect(summary.held).toBe(WAITING + 2);
  const kept = await table.client.send(
    new GetItemCommand({ TableName: table.tableName, Key: heldItemKey('zz-expiring') }),
  );
  expect(Number(kept.Item?.expiresAt?.N)).toBe(expiresAfterDays(NOW, KEEP_DAYS));
  expect((await readHeld(table, 'zz-expiring'))?.why).toBe('paused');
}, 60_000);
