/**
 * A request whose record fails on every receive: on the last receive before SQS moves it to the
 * DLQ (the queue's maxReceiveCount), the worker audits it as given up and tells the requester and
 * the channel, and the record still fails, so SQS keeps it in the DLQ. Real worker, fauxqs and
 * dynalite, the Console API sandbox failing with 503s and 429s, the Slack stand-in.
 */
import { GetQueueAttributesCommand, PurgeQueueCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { storyLines, storyOf } from '../../src/audit/story.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readAudit } from '../../src/state/audit.js';
import { claimEffect } from '../../src/state/effects.js';
import { endHold, readHeld } from '../../src/state/held.js';
import { rememberSecret } from '../../src/util/secret-scrub.js';
import { receiveEvent } from '../helpers/lambda.js';
import { benchResetEachTest } from './fixture.js';

// One attempt per receive: each receive is one failed call.
const bench = benchResetEachTest({ client: { maxRetries: 0 } });

beforeEach(async () => {
  bench.api.sandbox.setFaults({ errorRate: 0, rateLimitRate: 0 });
  bench.slack.setStatus(200);
  bench.slack.posts.length = 0;
  await bench.emulators.sqs.send(new PurgeQueueCommand({ QueueUrl: bench.emulators.dlqUrl }));
});

const postsTo = (path: string) => bench.slack.posts.filter((p) => p.path === path);
const channelPostsAbout = (requestId: string) =>
  postsTo('/services/channel').filter((p) => JSON.stringify(p.body).includes(requestId));
const current = (triggerId: string) => bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID;

/** The event as the event source delivers it on receive `n` (SQS's own count, as Lambda passes it). */
function onReceive(event: SQSEvent, n: number): SQSEvent {
  return {
    Records: event.Records.map((r) => ({
      ...r,
      attributes: { ...r.attributes, ApproximateReceiveCount: String(n) },
    })),
  };
}

async function dlqDepth(): Promise<number> {
  const out = await bench.emulators.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: bench.emulators.dlqUrl,
      AttributeNames: ['ApproximateNumberOfMessages'],
    }),
  );
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? '0');
}

describe('a request given up after the last receive', () => {
  it('fails quietly on earlier receives, then audits and tells on the last one, and SQS keeps it in the DLQ', async () => {
    const worker = bench.worker();
    bench.api.sandbox.setFaults({ errorRate: 1, only: 'mutations' });
    await bench.send({
      triggerId: 'trg_3',
      phaseId: current('trg_3'),
      requestId: 'ci-503-every-time',
      reply: { slackResponseUrl: bench.slack.url('/actions/503') },
    });
    // Real receives: each one's message is visible again at once, as after a visibility timeout.
    for (let receive = 1; receive <= MAX_RECEIVE_COUNT; receive++) {
      const event = await receiveEvent(bench.queue, { max: 1, visibilityTimeout: 0 });
      expect(event.Records[0]?.attributes.ApproximateReceiveCount).toBe(String(receive));
      const response = await bench.run(worker, event);
      // Never acknowledged: the record reaches the DLQ, never dropped.
      expect(response.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([event.Records[0]?.messageId]);
      if (receive < MAX_RECEIVE_COUNT) {
        expect(bench.slack.posts).toEqual([]);
        expect(await readAudit(bench.table, 'ci-503-every-time')).toEqual([]);
      }
    }

    const audit = await readAudit(bench.table, 'ci-503-every-time');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      result: 'dead-lettered',
      rule: 'retries-exhausted',
      requester: 'ci:github-actions/deploy.yml',
      effectKey: expect.stringMatching(/^approve_phase#trg_3#/),
      at: '2026-11-23T10:00:00.000Z',
    });
    expect(audit[0]?.reason).toMatch(
      /^gave up after 5 attempts \(last: transient failure: .*: 50[023] .*\); kept in the dead-letter queue for an operator \(autopilot dlq list\)/,
    );
    // A 503 may come after the platform applied the change: the requester is told to check.
    expect(audit[0]?.reason).toContain('an attempt may have reached the Console API');

    const reply = postsTo('/actions/503');
    expect(reply).toHaveLength(1);
    const text = reply[0]?.body.text ?? '';
    expect(text).toContain('Gave up trying to approve phase `');
    expect(text).toContain('An attempt may have reached the Console API: check whether the change was made');
    expect(text).toMatch(/after 5 attempts \(last: transient failure: .*: 50[023] .*\)/);
    expect(text).toContain('it waits in the dead-letter queue for an operator (`autopilot dlq list`)');
    expect(JSON.stringify(reply[0]?.body.blocks)).toContain('request `ci-503-every-time`');
    expect(channelPostsAbout('ci-503-every-time')).toHaveLength(1);
    // `autopilot audit --request` and `/autopilot why` read an ending.
    expect(storyLines(storyOf('ci-503-every-time', audit)).at(-1)).toBe(
      '  ended: dead-lettered (rule retries-exhausted) at 2026-11-23T10:00:00.000Z',
    );

    // The next receive finds it over its maxReceiveCount: fauxqs moves it to the DLQ.
    expect((await receiveEvent(bench.queue, { max: 1 })).Records).toHaveLength(0);
    expect(await dlqDepth()).toBe(1);
  });

  it('tells a run of 429s on the last receive, and nothing on the one before', async () => {
    const worker = bench.worker();
    bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 30, only: 'mutations' });
    await bench.send({
      triggerId: 'trg_5',
      phaseId: current('trg_5'),
      requestId: 'ci-429-every-time',
      reply: { slackResponseUrl: bench.slack.url('/actions/429') },
    });
    const event = await bench.receive();
    expect((await bench.run(worker, onReceive(event, MAX_RECEIVE_COUNT - 1))).batchItemFailures).toHaveLength(
      1,
    );
    expect(bench.slack.posts).toEqual([]);
    expect(await readAudit(bench.table, 'ci-429-every-time')).toEqual([]);

    expect((await bench.run(worker, onReceive(event, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(1);
    const [record] = await readAudit(bench.table, 'ci-429-every-time');
    expect(record).toMatchObject({ result: 'dead-lettered', rule: 'retries-exhausted' });
    expect(record?.reason).toMatch(/\(last: transient failure: .*429/i);
    // A 429 is a refusal before anything was done: no "may have reached".
    expect(record?.reason).not.toContain('may have reached');
    const text = postsTo('/actions/429')[0]?.body.text ?? '';
    expect(text).toMatch(/Could not approve phase .* after 5 attempts \(last: transient failure: /);
    expect(text).not.toContain('may have reached');
  });

  it('tells an unexpected error, scrubbed of secrets and escaped for Slack', async () => {
    const secret = 'xoxb-given-up-secret-0123456789';
    rememberSecret(secret);
    const worker = bench.worker({
      decide: () => {
        throw new Error(`policy engine broke on <!channel> with ${secret}`);
      },
    });
    await bench.send({
      triggerId: 'trg_2',
      phaseId: current('trg_2'),
      requestId: 'ci-unexpected',
      reply: { slackResponseUrl: bench.slack.url('/actions/unexpected') },
    });
    const event = onReceive(await bench.receive(), MAX_RECEIVE_COUNT);
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);

    const [record] = await readAudit(bench.table, 'ci-unexpected');
    expect(record).toMatchObject({ result: 'dead-lettered', rule: 'retries-exhausted' });
    expect(record?.reason).toContain('(last: policy engine broke on <!channel> with ');
    expect(record?.reason).not.toContain(secret);
    // Nothing was claimed, so nothing may have reached the platform.
    expect(record?.reason).not.toContain('may have reached');
    const body = JSON.stringify(postsTo('/actions/unexpected')[0]?.body);
    expect(body).toContain('policy engine broke on &lt;!channel&gt;');
    expect(body).not.toContain('<!channel>');
    expect(body).not.toContain(secret);
    expect(bench.logs.some((l) => JSON.stringify(l).includes(secret))).toBe(false);
  });

  it("says an earlier copy's call may have reached the platform when that copy crashed mid-call", async () => {
    const worker = bench.worker({
      decide: () => {
        throw new Error('policy engine broke');
      },
    });
    const phaseId = current('trg_8') ?? '';
    // A copy that crashed while calling: its claim's lock ran out, so the effect reads as free,
    // but the claim was never given back and its call may have reached the platform.
    await claimEffect(bench.table, `approve_phase#trg_8#${phaseId}`, {
      owner: 'crashed-copy',
      lockExpiresAt: bench.clock.now.getTime() - 60_000,
      nowMs: bench.clock.now.getTime() - 10 * 60_000,
    });
    await bench.send({
      triggerId: 'trg_8',
      phaseId,
      requestId: 'ci-after-crash',
      reply: { slackResponseUrl: bench.slack.url('/actions/after-crash') },
    });
    const event = onReceive(await bench.receive(), MAX_RECEIVE_COUNT);
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    const [record] = await readAudit(bench.table, 'ci-after-crash');
    expect(record).toMatchObject({ result: 'dead-lettered', rule: 'retries-exhausted' });
    expect(record?.reason).toContain('may have reached');
  });

  it('tells nobody when another copy is executing the effect', async () => {
    const worker = bench.worker();
    const phaseId = current('trg_9') ?? '';
    // A copy of this same request (owner `<request id>/<message id>/<uuid>`): it tells its own end.
    await claimEffect(bench.table, `approve_phase#trg_9#${phaseId}`, {
      owner: 'ci-busy/another-copy-message/0e5f6a7b',
      lockExpiresAt: bench.clock.now.getTime() + 60 * 60_000,
      nowMs: bench.clock.now.getTime(),
    });
    await bench.send({
      triggerId: 'trg_9',
      phaseId,
      requestId: 'ci-busy',
      reply: { slackResponseUrl: bench.slack.url('/actions/busy') },
    });
    const event = onReceive(await bench.receive(), MAX_RECEIVE_COUNT);
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    expect(bench.slack.posts).toEqual([]);
    expect(await readAudit(bench.table, 'ci-busy')).toEqual([]);
    expect(bench.approvals('trg_9')).toBe(0);
  });

  it('tells nobody about a held request failing on the last receive: the release tick sends it again', async () => {
    const worker = bench.worker();
    bench.clock.now = new Date('2026-11-28T10:00:00Z'); // a Saturday: CI is deferred to Monday
    await bench.send({
      triggerId: 'trg_11',
      phaseId: current('trg_11'),
      requestId: 'ci-held-then-503',
      reply: { slackResponseUrl: bench.slack.url('/actions/held') },
    });
    const event = await bench.receive();
    expect(await bench.run(worker, event)).toEqual({ batchItemFailures: [] });
    expect(await readHeld(bench.table, 'ci-held-then-503')).toBeDefined();
    bench.slack.posts.length = 0;

    bench.clock.now = new Date('2026-11-30T10:00:00Z'); // Monday: the released copy runs and fails
    bench.api.sandbox.setFaults({ errorRate: 1, only: 'mutations' });
    try {
      expect((await bench.run(worker, onReceive(event, MAX_RECEIVE_COUNT))).batchItemFailures).toHaveLength(
        1,
      );
      expect(bench.slack.posts).toEqual([]);
      expect((await readAudit(bench.table, 'ci-held-then-503')).map((r) => r.result)).toEqual(['deferred']);
    } finally {
      await endHold(bench.table, 'ci-held-then-503');
    }
  });

  it('still fails the record when the Slack post fails, and logs it', async () => {
    const worker = bench.worker();
    bench.api.sandbox.setFaults({ errorRate: 1, only: 'mutations' });
    bench.slack.setStatus(500);
    await bench.send({
      triggerId: 'trg_4',
      phaseId: current('trg_4'),
      requestId: 'ci-post-fails',
      reply: { slackResponseUrl: bench.slack.url('/actions/post-fails') },
    });
    const event = onReceive(await bench.receive(), MAX_RECEIVE_COUNT);
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    expect(postsTo('/actions/post-fails')).toHaveLength(1);
    expect((await readAudit(bench.table, 'ci-post-fails')).map((r) => r.result)).toEqual(['dead-lettered']);
    expect(
      bench.logs.some((l) => l.requestId === 'ci-post-fails' && l.message === 'reply not delivered'),
    ).toBe(true);
  });

  it('still fails the record when the audit cannot be written, and logs it', async () => {
    const real = bench.table.client;
    const failingAudit = {
      send: (command: { input?: { Item?: { pk?: { S?: string } } } }) =>
        command.input?.Item?.pk?.S?.startsWith('audit#')
          ? Promise.reject(new Error('audit table unavailable'))
          : real.send(command as never),
    } as unknown as typeof real;
    const worker = bench.worker({ table: { ...bench.table, client: failingAudit } });
    bench.api.sandbox.setFaults({ errorRate: 1, only: 'mutations' });
    await bench.send({
      triggerId: 'trg_6',
      phaseId: current('trg_6'),
      requestId: 'ci-audit-fails',
      reply: { slackResponseUrl: bench.slack.url('/actions/audit-fails') },
    });
    const event = onReceive(await bench.receive(), MAX_RECEIVE_COUNT);
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    expect(postsTo('/actions/audit-fails')).toHaveLength(1);
    expect(
      bench.logs.some(
        (l) =>
          l.requestId === 'ci-audit-fails' && l.message === 'could not audit that the request was given up',
      ),
    ).toBe(true);
  });
});
