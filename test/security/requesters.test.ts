/**
 * Proven requesters: the worker accepts `slack` only from the webhook and `events`/`schedule`
 * only from the sweeper (each vouches with its own key), `ci` from whoever the queue policy let
 * send. Forged, re-labelled and tampered messages end in the DLQ with "requester not proven",
 * are audited, and change nothing. Driven against fauxqs, dynalite and the sandbox.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  checkRequesterProof,
  createRequesterSigner,
  PROOF_ATTRIBUTE,
  requesterProof,
} from '../../src/actions/proof.js';
import type { ActionRequest } from '../../src/actions/request.js';
import { createLogger } from '../../src/observability/logger.js';
import { sendActionRequest, sqsSafeJson } from '../../src/queue/actions-queue.js';
import { readAudit } from '../../src/state/audit.js';
import { endHold, holdRequest } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { benchResetEachTest } from '../worker/fixture.js';

const bench = benchResetEachTest();
let worker: WorkerHandler;

beforeAll(() => {
  worker = bench.worker();
});
beforeEach(async () => {
  await drainDlq();
});

/** The attack of the report: archive a config as the admin, from a plain SQS client. */
const forgedArchive = (requestId: string, source = 'slack', id = 'U0ADMIN') => ({
  version: 1,
  action: 'archive_config',
  configId: 'new_checkout_copy',
  reason: 'forged',
  requestedBy: { source, id },
  requestedAt: bench.clock.now.toISOString(),
  requestId,
});

async function sendRaw(body: string, proof?: string): Promise<void> {
  await bench.queue.sqs.send(
    new SendMessageCommand({
      QueueUrl: bench.queue.queueUrl,
      MessageBody: body,
      ...(proof
        ? { MessageAttributes: { [PROOF_ATTRIBUTE]: { DataType: 'String', StringValue: proof } } }
        : {}),
    }),
  );
}

async function drainDlq(): Promise<Array<{ body: string; error: string | undefined }>> {
  const out: Array<{ body: string; error: string | undefined }> = [];
  for (;;) {
    const { Messages = [] } = await bench.queue.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: bench.emulators.dlqUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return out;
    for (const m of Messages) {
      out.push({ body: m.Body ?? '', error: m.MessageAttributes?.error?.StringValue });
      await bench.queue.sqs.send(
        new DeleteMessageCommand({ QueueUrl: bench.emulators.dlqUrl, ReceiptHandle: m.ReceiptHandle }),
      );
    }
  }
}

const mutations = () => bench.api.sandbox.requests.filter((r) => r.method !== 'GET').length;

async function runOnce(): Promise<void> {
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);
  expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
}

async function expectRefused(requestId: string, reason: RegExp): Promise<void> {
  const before = mutations();
  await runOnce();
  expect(mutations()).toBe(before);
  const [dead, ...more] = await drainDlq();
  expect(more).toEqual([]);
  expect(dead?.error).toMatch(/^requester not proven: /);
  expect(dead?.error).toMatch(reason);
  const audit = await readAudit(bench.table, requestId);
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ result: 'dead-lettered', rule: 'requester-not-proven' });
  expect(audit[0]?.requester).toMatch(/^unproven /);
}

describe('requesters the worker accepts', () => {
  it('refuses a slack request put on the queue by a plain SQS client: DLQ, audited, nothing archived', async () => {
    await sendRaw(sqsSafeJson(forgedArchive('forged-1')));
    await expectRefused(
      'forged-1',
      /slack requests are accepted only from the webhook; this message carries no proof/,
    );
    expect(bench.api.sandbox.state.configs.get('new_checkout_copy')?.archived).not.toBe(true);
  });

  it('executes the same request when the webhook vouched for it', async () => {
    await bench.send({ ...forgedArchive('webhook-1'), action: 'archive_config' } as never);
    await runOnce();
    const audit = await readAudit(bench.table, 'webhook-1');
    expect(audit[0]).toMatchObject({ result: 'archived', requester: 'slack:U0ADMIN' });
  });

  it.each([
    ['schedule', 'the sweeper'],
    ['events', 'the sweeper'],
  ])('refuses an unproven %s request', async (source, voucher) => {
    await sendRaw(sqsSafeJson(forgedArchive(`forged-${source}`, source, 'stale-config-sweep')));
    await expectRefused(`forged-${source}`, new RegExp(`accepted only from ${voucher}`));
  });

  it('refuses a slack request vouched for by the sweeper, and one signed with a guessed key', async () => {
    const body = sqsSafeJson(forgedArchive('relabelled'));
    await sendRaw(body, requesterProof('sweeper', bench.requesterKeys.sweeper as string, body));
    await expectRefused('relabelled', /its proof was made by the sweeper/);
    const guessed = sqsSafeJson(forgedArchive('guessed'));
    await sendRaw(guessed, requesterProof('webhook', 'guessed-key', guessed));
    await expectRefused('guessed', /its proof does not match the body/);
  });

  it('refuses a vouched-for body changed after signing', async () => {
    const signed = sqsSafeJson(forgedArchive('tampered'));
    const proof = requesterProof('webhook', bench.requesterKeys.webhook as string, signed);
    await sendRaw(signed.replace('U0ADMIN', 'U0ADMIM'), proof);
    await expectRefused('tampered', /does not match the body/);
  });

  it('accepts ci from any sender the queue let in (the queue policy names them)', async () => {
    await sendRaw(
      sqsSafeJson({
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_2',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
        requestedAt: bench.clock.now.toISOString(),
        requestId: 'ci-plain-1',
      }),
    );
    await runOnce();
    expect((await readAudit(bench.table, 'ci-plain-1'))[0]).toMatchObject({ result: 'approved' });
    expect(await drainDlq()).toEqual([]);
  });

  it('reads the keys again when a proof fails (a rotated key) and then accepts it', async () => {
    const rotated = { webhook: 'rotated-webhook-key' };
    let current = {};
    let refreshes = 0;
    const rotating = bench.worker({
      requesterKeys: {
        get: async () => current,
        refresh: async () => {
          refreshes++;
          current = rotated;
          return true;
        },
      },
    });
    const body = sqsSafeJson({
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_3',
      phaseId: 'ph_1',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestedAt: bench.clock.now.toISOString(),
      requestId: 'rotated-1',
    });
    await sendRaw(body, requesterProof('webhook', rotated.webhook, body));
    const event = await bench.receive();
    expect(await bench.run(rotating, event)).toEqual({ batchItemFailures: [] });
    expect(refreshes).toBe(1);
    expect((await readAudit(bench.table, 'rotated-1'))[0]).toMatchObject({ result: 'approved' });
  });
});

describe('proofs', () => {
  const keys = { webhook: 'k-webhook', sweeper: 'k-sweeper' };
  const body = '{"requestedBy":{"source":"slack","id":"U1"}}';

  it('vouch for exactly the sources of their signer', () => {
    const webhook = requesterProof('webhook', keys.webhook, body);
    const sweeper = requesterProof('sweeper', keys.sweeper, body);
    expect(checkRequesterProof('slack', body, webhook, keys)).toEqual({ ok: true, vouchedBy: 'webhook' });
    expect(checkRequesterProof('events', body, sweeper, keys)).toEqual({ ok: true, vouchedBy: 'sweeper' });
    expect(checkRequesterProof('schedule', body, sweeper, keys)).toEqual({ ok: true, vouchedBy: 'sweeper' });
    expect(checkRequesterProof('events', body, webhook, keys).ok).toBe(false);
    expect(checkRequesterProof('slack', body, sweeper, keys).ok).toBe(false);
    expect(checkRequesterProof('slack', body, 'v1.webhook.zz', keys)).toMatchObject({
      reason: expect.stringContaining('malformed'),
    });
    expect(checkRequesterProof('slack', body, webhook, { sweeper: keys.sweeper })).toMatchObject({
      reason: expect.stringContaining('holds no webhook key'),
    });
  });

  it('never name a key or a MAC in a refusal', () => {
    const wrong = requesterProof('webhook', 'other', body);
    const check = checkRequesterProof('slack', body, wrong, keys);
    expect(check.ok).toBe(false);
    const reason = (check as { reason: string }).reason;
    for (const secret of [keys.webhook, keys.sweeper, wrong.slice(11)]) expect(reason).not.toContain(secret);
  });

  it('a function cannot send a request it cannot vouch for', async () => {
    const webhookOnly = createRequesterSigner(async () => ({ webhook: keys.webhook }));
    await expect(
      sendActionRequest(bench.queue.sqs, bench.queue.queueUrl, forgedArchive('x', 'schedule', 'y') as never, {
        signer: webhookOnly,
      }),
    ).rejects.toThrow('cannot vouch for schedule requests: no sweeper key');
    expect(await webhookOnly.proofFor('ci', body)).toBeUndefined();
  });

  it('a held request the release tick sends back is vouched for again', async () => {
    const signer = createRequesterSigner(async () => bench.requesterKeys);
    const request = { ...forgedArchive('deferred-1'), requestId: 'deferred-1' } as ActionRequest;
    const since = bench.clock.now.toISOString();
    const held = { action: 'archive_config', target: 'config new_checkout_copy', requester: 'slack:U0ADMIN' };
    await holdRequest(
      bench.table,
      {
        ...held,
        requestId: 'deferred-1',
        why: 'window',
        rule: 'r',
        reason: 'r',
        since,
        nextLook: since,
        request,
      },
      bench.clock.now,
    );
    const logger = createLogger({ service: 'release', sink: () => {} });
    const tick = { table: bench.table, sqs: bench.queue.sqs, queueUrl: bench.queue.queueUrl, signer, logger };
    expect((await releaseHeld(tick, bench.clock.now)).released).toEqual(['deferred-1']);
    await endHold(bench.table, 'deferred-1');
    const event = await bench.receive(10, 3);
    const record = event.Records[0];
    expect(record).toBeDefined();
    const proof = record?.messageAttributes[PROOF_ATTRIBUTE]?.stringValue;
    expect(checkRequesterProof('slack', record?.body ?? '', proof, bench.requesterKeys)).toMatchObject({
      ok: true,
    });
  });
});
