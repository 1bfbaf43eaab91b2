import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { readAudit } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { writeVeto } from '../../src/state/veto.js';
import { releaseHeld } from '../../src/worker/release.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { type Bench, basePolicy, benchResetEachTest } from './fixture.js';

const bench = benchResetEachTest();
let worker: WorkerHandler;

beforeAll(() => {
  worker = bench.worker();
});

const quiet = createLogger({ service: 'release', sink: () => {} });
const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;
const resultsFor = (requestId: string) =>
  bench.logs.filter((l) => l.requestId === requestId && l.result).map((l) => l.result);
const postsTo = (path: string) => bench.slack.posts.filter((p) => p.path === path);

describe('the action worker', () => {
  it('approves a phase end to end: one API call, audit record, log line and replies', async () => {
    expect(current('trg_1')).toBe('ph_1');
    await bench.send({
      triggerId: 'trg_1',
      phaseId: 'ph_1',
      requestId: 'ci-approve-1',
      reason: 'smoke tests green',
      reply: { slackResponseUrl: bench.slack.url('/actions/approve-1') },
    });
    const event = await bench.receive();
    expect(event.Records).toHaveLength(1);
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });

    expect(bench.approvals('trg_1')).toBe(1);
    expect(current('trg_1')).toBe('ph_2');
    const audit = await readAudit(bench.table, 'ci-approve-1');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      result: 'approved',
      rule: 'CI in office hours',
      requester: 'ci:github-actions/deploy.yml',
      effectKey: 'approve_phase#trg_1#ph_1',
      dryRun: false,
    });
    expect(resultsFor('ci-approve-1')).toEqual(['approved']);
    const reply = postsTo('/actions/approve-1');
    expect(reply).toHaveLength(1);
    expect(reply[0]?.body.text).toContain('Done: approve phase `ph_1` of trigger `trg_1`');
    expect(reply[0]?.body.text).toContain('Rule: CI in office hours');
    expect(postsTo('/services/channel').some((p) => p.body.text?.includes('trg_1'))).toBe(true);
  });

  it('denies by rule without calling the API, and says which rule and why', async () => {
    await bench.send({
      triggerId: 'trg_4',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'blocked' },
      requestId: 'ci-deny-1',
      reply: { slackResponseUrl: bench.slack.url('/actions/deny-1') },
    });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(bench.approvals('trg_4')).toBe(0);
    expect((await readAudit(bench.table, 'ci-deny-1')).map((r) => [r.result, r.rule])).toEqual([
      ['denied', 'blocked CI is denied'],
    ]);
    expect(postsTo('/actions/deny-1')[0]?.body.text).toMatch(/Denied: .*Rule: blocked CI is denied/);
  });

  it('defers outside the window with the same request, then approves once the window opens', async () => {
    bench.clock.now = new Date('2026-11-23T08:59:58Z');
    const requestedAt = bench.clock.now.toISOString();
    await bench.send({ triggerId: 'trg_4', phaseId: 'ph_1', requestId: 'ci-defer-1', requestedAt });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(bench.approvals('trg_4')).toBe(0);
    const [deferred] = await readAudit(bench.table, 'ci-defer-1');
    expect(deferred).toMatchObject({ result: 'deferred', deferUntil: '2026-11-23T09:00:00.000Z' });

    // Held in the table, not re-sent: the release tick sends it back at 09:00, same id and requestedAt.
    expect((await bench.receive()).Records).toHaveLength(0);
    expect((await listHeld(bench.table)).map((h) => [h.requestId, h.why, h.nextLook])).toEqual([
      ['ci-defer-1', 'window', '2026-11-23T09:00:00.000Z'],
    ]);
    const tick = { table: bench.table, sqs: bench.queue.sqs, queueUrl: bench.queue.queueUrl, logger: quiet };
    expect((await releaseHeld(tick, new Date('2026-11-23T08:59:59Z'))).released).toEqual([]);
    expect((await releaseHeld(tick, new Date('2026-11-23T09:00:02Z'))).released).toEqual(['ci-defer-1']);
    bench.clock.now = new Date('2026-11-23T09:00:05Z');
    const later = await bench.receive();
    expect(later.Records).toHaveLength(1);
    expect(JSON.parse(later.Records[0]?.body ?? '{}')).toMatchObject({
      requestId: 'ci-defer-1',
      requestedAt,
    });
    expect(await bench.run(worker, later)).toEqual({ batchItemFailures: [] });
    expect(bench.approvals('trg_4')).toBe(1);
    expect((await readAudit(bench.table, 'ci-defer-1')).map((r) => r.result)).toEqual([
      'deferred',
      'released',
      'approved',
    ]);
    expect(await listHeld(bench.table)).toEqual([]);
  });

  it('denies a request deferred for longer than maxDeferHours', async () => {
    await bench.send({
      triggerId: 'trg_2',
      phaseId: 'ph_1',
      requestId: 'ci-expired-1',
      requestedAt: '2026-11-19T10:00:00Z',
    });
    await bench.run(worker, await bench.receive());
    expect((await readAudit(bench.table, 'ci-expired-1'))[0]).toMatchObject({
      result: 'denied',
      rule: 'maxDeferHours',
    });
    expect(bench.approvals('trg_2')).toBe(0);
  });

  it('ends a stale phase as "stale" with the platform message, not as a retry', async () => {
    expect(current('trg_5')).toBe('ph_2');
    await bench.send({ triggerId: 'trg_5', phaseId: 'ph_1', requestId: 'ci-stale-1' });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(bench.approvals('trg_5')).toBe(1);
    const [record] = await readAudit(bench.table, 'ci-stale-1');
    expect(record?.result).toBe('stale');
    expect(record?.reason).toContain('not the current phase');
  });

  it('calls the API once for the same message processed twice in a row, and replays the outcome', async () => {
    await bench.send({
      triggerId: 'trg_2',
      phaseId: 'ph_1',
      requestId: 'ci-dup-1',
      reply: { slackResponseUrl: bench.slack.url('/actions/dup-1') },
    });
    const event = await bench.receive();
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    expect(bench.approvals('trg_2')).toBe(1);
    expect((await readAudit(bench.table, 'ci-dup-1')).map((r) => r.result)).toEqual(['approved', 'replayed']);
    expect(postsTo('/actions/dup-1')).toHaveLength(2);
    // Another request for the same effect is told it already happened.
    await bench.send({ triggerId: 'trg_2', phaseId: 'ph_1', requestId: 'ci-dup-2' });
    await bench.run(worker, await bench.receive());
    expect(bench.approvals('trg_2')).toBe(1);
    expect(resultsFor('ci-dup-2')).toEqual(['replayed']);
  });

  it('calls the API once when two copies are processed at the same moment', async () => {
    await bench.send({ triggerId: 'trg_3', phaseId: 'ph_1', requestId: 'ci-race-1' });
    await bench.send({ triggerId: 'trg_3', phaseId: 'ph_1', requestId: 'ci-race-2' });
    const event = await bench.receive();
    expect(event.Records).toHaveLength(2);
    const handlers = [bench.worker(), bench.worker(), bench.worker()];
    const responses = await Promise.all([
      ...handlers.map((h) => bench.run(h, event)),
      ...handlers.map((h) => bench.run(h, { Records: [...event.Records].reverse() })),
    ]);
    expect(bench.approvals('trg_3')).toBe(1);
    // Copies that found the effect in progress are retried later; then they replay.
    const retried = responses.flatMap((r) => r.batchItemFailures);
    for (const failure of retried) {
      const record = event.Records.find((r) => r.messageId === failure.itemIdentifier)!;
      expect(await bench.run(worker, { Records: [record] })).toEqual({ batchItemFailures: [] });
    }
    expect(bench.approvals('trg_3')).toBe(1);
    const ends = [
      ...(await readAudit(bench.table, 'ci-race-1')),
      ...(await readAudit(bench.table, 'ci-race-2')),
    ];
    expect(ends.filter((r) => r.result === 'approved')).toHaveLength(1);
    expect(ends.filter((r) => r.result !== 'approved').every((r) => r.result === 'replayed')).toBe(true);
  });

  it('moves a poison message to the DLQ at once with the validation error, and acknowledges it', async () => {
    await bench.send({
      triggerId: 'trg_1',
      phaseId: 'ph_2',
      requestId: 'ci-ok-neighbour',
      requestedBy: { source: 'ci', id: 'blocked' },
    });
    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    await bench.queue.sqs.send(
      new SendMessageCommand({
        QueueUrl: bench.queue.queueUrl,
        MessageBody: JSON.stringify({ version: 1, action: 'approve_phase', triggerId: 'trg_1' }),
        MessageAttributes: { producer: { DataType: 'String', StringValue: 'a test' } },
      }),
    );
    const event = await bench.receive();
    expect(event.Records).toHaveLength(2);
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    const dlq = await bench.queue.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: bench.emulators.dlqUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
      }),
    );
    expect(dlq.Messages).toHaveLength(1);
    const message = dlq.Messages?.[0];
    const poison = event.Records.find((r) => !r.body.includes('blocked'))!;
    expect(message?.Body).toBe(poison.body);
    expect(message?.MessageAttributes?.sourceMessageId?.StringValue).toBe(poison.messageId);
    expect(message?.MessageAttributes?.producer?.StringValue).toBe('a test');
    expect(message?.MessageAttributes?.error?.StringValue).toContain('phaseId');
    expect(message?.MessageAttributes?.error?.StringValue).toContain('requestedBy');
    expect(Date.parse(message?.MessageAttributes?.failedAt?.StringValue ?? '')).not.toBeNaN();
  });

  it('fails a poison record when the DLQ cannot take it, so nothing is dropped', async () => {
    const broken = bench.worker({ dlqUrl: `${bench.emulators.dlqUrl}-missing` });
    await bench.queue.sqs.send(
      new (await import('@aws-sdk/client-sqs')).SendMessageCommand({
        QueueUrl: bench.queue.queueUrl,
        MessageBody: 'not json',
      }),
    );
    const event = await bench.receive();
    expect(await bench.run(broken, event)).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0]?.messageId }],
    });
  });

  it('backs off a 429 storm through the message visibility and loses nothing', async () => {
    const targets = [
      ['trg_6', 'ph_2'],
      ['trg_8', 'ph_3'],
      ['trg_10', 'ph_4'],
    ] as const;
    for (const [triggerId, phaseId] of targets) expect(current(triggerId)).toBe(phaseId);
    bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
    let event: Awaited<ReturnType<Bench['receive']>>;
    try {
      for (const [triggerId, phaseId] of targets) {
        await bench.send({ triggerId, phaseId, requestId: `ci-429-${triggerId}` });
      }
      event = await bench.receive();
      expect(event.Records).toHaveLength(3);
      const response = await bench.run(worker, event);
      expect(response.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(
        event.Records.map((r) => r.messageId).sort(),
      );
      // Invisible for Retry-After (30 s), not the queue's default: an immediate poll sees nothing.
      expect((await bench.receive()).Records).toHaveLength(0);
      for (const [triggerId, phaseId] of targets) expect(current(triggerId)).toBe(phaseId);
    } finally {
      bench.api.sandbox.setFaults({ rateLimitRate: 0 });
    }
    // The claims were given back: once the storm is over the same messages approve, once each.
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    for (const [triggerId] of targets) {
      expect((await readAudit(bench.table, `ci-429-${triggerId}`)).map((r) => r.result)).toEqual([
        'approved',
      ]);
    }
    expect(current('trg_6')).toBe('ph_3');
    expect(current('trg_8')).toBe('ph_4');
    expect(current('trg_10')).toBe(''); // its last phase: the trigger completed
  });

  it('fails the record on a 5xx and releases the claim, so the retry can approve', async () => {
    bench.api.sandbox.setFaults({ errorRate: 1, only: 'mutations' });
    await bench.send({ triggerId: 'trg_7', phaseId: 'ph_2', requestId: 'ci-5xx-1' });
    const event = await bench.receive();
    try {
      expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    } finally {
      bench.api.sandbox.setFaults({ errorRate: 0 });
    }
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    expect(current('trg_7')).toBe('ph_3');
  });

  it('decides, records and replies on a dry run, and mutates nothing', async () => {
    await bench.send({
      triggerId: 'trg_11',
      phaseId: 'ph_4',
      requestId: 'ci-dry-1',
      dryRun: true,
      reply: { slackResponseUrl: bench.slack.url('/actions/dry-1') },
    });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(current('trg_11')).toBe('ph_4');
    expect((await readAudit(bench.table, 'ci-dry-1'))[0]).toMatchObject({
      result: 'would-mutate',
      dryRun: true,
    });
    expect(postsTo('/actions/dry-1')[0]?.body.text).toContain('[dry run] Would approve');
  });

  it('asks a human with Approve/Deny buttons once, however often the request comes back', async () => {
    await bench.send({
      triggerId: 'trg_9',
      phaseId: 'ph_3',
      requestedBy: { source: 'schedule', id: 'nightly' },
      requestId: 'sched-ask-1',
    });
    const event = await bench.receive();
    const before = postsTo('/services/channel').length;
    await bench.run(worker, event);
    await bench.run(worker, event);
    const asks = postsTo('/services/channel').slice(before);
    expect(asks).toHaveLength(1);
    const actions = asks[0]?.body.blocks?.find((b) => (b as { type: string }).type === 'actions') as {
      elements: Array<{ action_id: string; value: string }>;
    };
    const carried = JSON.parse(Buffer.from(actions.elements[0]?.value ?? '', 'base64url').toString('utf8'));
    expect(carried).toMatchObject({ triggerId: 'trg_9', phaseId: 'ph_3', requestId: 'sched-ask-1' });
    expect(bench.approvals('trg_9')).toBe(0);

    // A human's click comes back as a Slack request holding the grant: approved, automation yields.
    await bench.send({
      ...carried,
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestId: 'sched-ask-1:approved-by:U0ADMIN',
    });
    await bench.run(worker, await bench.receive());
    expect(current('trg_9')).toBe('ph_4');
    expect(resultsFor('sched-ask-1:approved-by:U0ADMIN')).toEqual(['approved']);
  });

  it('denies an "ask" when the policy has no channel to ask in', async () => {
    const policy = { ...basePolicy(bench.slack.origin), notifications: {} };
    await bench.send({
      triggerId: 'trg_9',
      phaseId: 'ph_4',
      requestedBy: { source: 'schedule', id: 'n' },
      requestId: 'sched-ask-2',
    });
    await bench.run(bench.worker({ policy }), await bench.receive());
    const [record] = await readAudit(bench.table, 'sched-ask-2');
    expect(record?.result).toBe('denied');
    expect(record?.reason).toContain('no notifications channel (slackWebhookUrl)');
  });

  it('denies automation after a human veto, while a human with the grant still approves', async () => {
    expect(current('trg_7')).toBe('ph_3');
    await writeVeto(bench.table, 'approve_phase#trg_7#ph_3', { by: 'U0ADMIN', at: bench.clock.now });
    await bench.send({ triggerId: 'trg_7', phaseId: 'ph_3', requestId: 'ci-vetoed-1' });
    await bench.run(worker, await bench.receive());
    expect((await readAudit(bench.table, 'ci-vetoed-1'))[0]).toMatchObject({
      result: 'denied',
      rule: 'veto',
    });
    expect(current('trg_7')).toBe('ph_3');
    // The denial is not stored against the effect: a later human request is decided afresh.
    await bench.send({
      triggerId: 'trg_7',
      phaseId: 'ph_3',
      requestId: 'human-1',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
    });
    await bench.run(worker, await bench.receive());
    expect(current('trg_7')).toBe('ph_4');
    expect(resultsFor('human-1')).toEqual(['approved']);
  });

  it('defers everything while paused, and tells people once', async () => {
    await writePause(bench.table, { paused: true, by: 'U0ADMIN', reason: 'incident', at: bench.clock.now });
    try {
      await bench.send({ triggerId: 'trg_11', phaseId: 'ph_4', requestId: 'ci-paused-1' });
      const event = await bench.receive();
      await bench.run(worker, event);
      expect((await readAudit(bench.table, 'ci-paused-1'))[0]).toMatchObject({
        result: 'deferred',
        rule: 'pause',
      });
      expect(bench.approvals('trg_11')).toBe(0);
      const told = postsTo('/services/channel').filter((p) => p.body.text?.includes('trg_11')).length;
      await bench.run(worker, event); // the deferred copy coming back
      expect(postsTo('/services/channel').filter((p) => p.body.text?.includes('trg_11')).length).toBe(told);
    } finally {
      await writePause(bench.table, { paused: false, by: 'U0ADMIN', at: bench.clock.now });
    }
  });

  it("applies the rule's hourly limit atomically and defers what is over it", async () => {
    await bench.send({
      triggerId: 'trg_11',
      phaseId: 'ph_4',
      requestId: 'ci-limit-1',
      requestedBy: { source: 'ci', id: 'limited' },
    });
    await bench.run(worker, await bench.receive());
    await bench.send({
      triggerId: 'trg_12',
      phaseId: 'ph_4',
      requestId: 'ci-limit-2',
      requestedBy: { source: 'ci', id: 'limited' },
    });
    await bench.run(worker, await bench.receive());
    expect(resultsFor('ci-limit-1')).toEqual(['approved']);
    expect(bench.approvals('trg_12')).toBe(0);
    const [over] = await readAudit(bench.table, 'ci-limit-2');
    expect(over?.result).toBe('deferred');
    expect(over?.deferUntil).toBe('2026-11-23T11:00:00.000Z');
  });

  it('disables experiment groups and archives configs, never a protected one', async () => {
    await bench.send({
      action: 'disable_groups',
      experimentId: 'push_timing',
      groupNames: ['evening'],
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestId: 'groups-1',
    });
    await bench.send({
      action: 'archive_config',
      configId: 'new_checkout_copy',
      reason: 'no exposures for 60 days',
      requestedBy: { source: 'schedule', id: 'stale-configs' },
      requestId: 'archive-1',
    });
    await bench.send({
      action: 'archive_config',
      configId: 'checkout_banner',
      reason: 'cleanup',
      force: true,
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestId: 'archive-protected',
    });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(resultsFor('groups-1')).toEqual(['groups-disabled']);
    expect(resultsFor('archive-1')).toEqual(['archived']);
    expect(bench.api.sandbox.state.configs.get('new_checkout_copy')?.archived).toBe(true);
    expect((await readAudit(bench.table, 'archive-protected'))[0]).toMatchObject({
      result: 'denied',
      rule: 'protect',
    });
    expect(bench.api.sandbox.state.configs.get('checkout_banner')?.archived).not.toBe(true);
  });

  it("ends a request the platform refuses (4xx) with the platform's own message, without retrying", async () => {
    const inPipeline = [...bench.api.sandbox.state.triggers.values()].find(
      (t) =>
        t.status !== 'completed' && t.currentPhaseID !== '' && !t.dynamicConfigID.startsWith('checkout_'),
    );
    expect(inPipeline).toBeDefined();
    await bench.send({
      action: 'archive_config',
      configId: inPipeline!.dynamicConfigID,
      reason: 'cleanup',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestId: 'archive-refused',
    });
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    const [record] = await readAudit(bench.table, 'archive-refused');
    expect(record?.result).toBe('rejected');
    expect(record?.reason).toContain('active release pipeline');
  });
});
