/**
 * The release tick re-signs every held item it finds with the key of the source its stored
 * request names (the worker holds the webhook's and the sweeper's keys). The webhook may update
 * held items (a click's answer, a cancel), and an UpdateItem creates an item that does not exist
 * yet: with no limit on the attributes, whoever runs as the webhook (the internet-facing
 * function) could write a held item whose `request` claims `schedule:` and have the worker vouch
 * for it with the sweeper's key, a key the webhook never holds. Its grant lists the attributes
 * it may name (infra/table-grants.ts, IAM `dynamodb:Attributes`): never the request.
 */

import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { WEBHOOK_TABLE_GRANTS } from '../../infra/table-grants.js';
import { createRequesterSigner } from '../../src/actions/proof.js';
import type { ActionRequest } from '../../src/actions/request.js';
import { createLogger } from '../../src/observability/logger.js';
import { readAudit } from '../../src/state/audit.js';
import { heldItemKey, holdRequest } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile } from '../worker/fixture.js';
import { recordingClient, refused, type TableRequest } from './table-requests.js';

const bench = benchForFile();

/** The table as a role with `grants` sees it: a request IAM would refuse fails, as AccessDenied. */
function asRole(grants: typeof WEBHOOK_TABLE_GRANTS) {
  const requests: TableRequest[] = [];
  return recordingClient(bench.emulators.dynamo, requests, async (request) => {
    const denied = refused([request], grants);
    if (denied.length > 0) throw new Error(`AccessDenied: ${denied.join('; ')}`);
  });
}

it("a held item written with the webhook's grants is never released as the sweeper's request", async () => {
  const now = bench.clock.now;
  const configId = 'new_checkout_copy';
  const forged: ActionRequest & { requestId: string } = {
    version: 1,
    action: 'archive_config',
    configId,
    reason: 'forged held item',
    requestedBy: { source: 'schedule', id: 'stale-config-sweep' },
    requestedAt: now.toISOString(),
    requestId: 'forged-held-1',
  };
  // Written as the webhook's role: an UpdateItem on the held partition (holdRequest is one), which
  // IAM refuses, since it names the request and its fields.
  const asWebhook = { client: asRole(WEBHOOK_TABLE_GRANTS), tableName: bench.table.tableName };
  const forgedHold = {
    requestId: forged.requestId,
    action: forged.action,
    target: `config ${configId}`,
    requester: 'schedule:stale-config-sweep',
    why: 'window' as const,
    rule: 'forged',
    reason: 'forged',
    since: now.toISOString(),
    nextLook: new Date(now.getTime() - 60_000).toISOString(),
    request: forged,
  };
  await expect(holdRequest(asWebhook, forgedHold, now)).rejects.toThrow(/AccessDenied.*request/);
  // The most its grant allows on a key that does not exist: an item of marks, with no request.
  await asWebhook.client.send(
    new UpdateItemCommand({
      TableName: bench.table.tableName,
      Key: heldItemKey('forged-held-2'),
      UpdateExpression: 'SET why = :ask, nextLook = :past, answeredBy = :by',
      ExpressionAttributeValues: {
        ':ask': { S: 'ask' },
        ':past': { S: new Date(now.getTime() - 60_000).toISOString() },
        ':by': { S: 'U_ATTACKER' },
      },
    }),
  );

  // The worker's release tick, then the worker.
  const worker = bench.worker();
  await releaseHeld(
    {
      table: bench.table,
      sqs: bench.queue.sqs,
      queueUrl: bench.queue.queueUrl,
      signer: createRequesterSigner(async () => bench.requesterKeys),
      logger: createLogger({ service: 'worker', sink: () => undefined }),
    },
    now,
  );
  const event = await bench.receive();
  if (event.Records.length > 0) await bench.run(worker, event);

  // Nothing the sweeper never asked for is archived in its name.
  expect(bench.api.sandbox.state.configs.get(configId)?.archived).not.toBe(true);
  const trail = await readAudit(bench.table, forged.requestId);
  expect(trail.filter((r) => r.result === 'archived')).toEqual([]);
});
