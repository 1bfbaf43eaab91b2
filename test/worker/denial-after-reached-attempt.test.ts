/**
 * A request that is not held itself, whose own earlier attempt may have reached the platform (a
 * call timed out in flight: the effect's claim was given back with its "may have reached" mark),
 * and which is then denied: an Approve click's copy given up on its last receive and redriven
 * from the DLQ by an operator after its question expired, or a CI request retried into a freeze.
 * The worker told ":no_entry: Denied …" (and stored a bare denial for the CI gate) although the
 * change may have been made. It now says "No longer tried, but it may have been done" and asks to
 * check, as it does for held requests. The real webhook, worker and release tick on the emulators.
 */
import { type MessageAttributeValue, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { ApiTimeoutError } from '../../src/console/index.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { releaseHeld } from '../../src/worker/release.js';
import { basePolicy, benchForFile, sentAt } from './fixture.js';
import { askQuestion, clickApprove, releaseDeps } from './questions.js';

const bench = benchForFile();

const timeoutError = () => Object.assign(new ApiTimeoutError('no answer within 10 ms'), { attempts: 1 });
/** A Console client whose approve call times out after it left: it may have approved the phase. */
const timingOutClient = {
  releasePipelineTriggers: {
    approve: async () => {
      throw timeoutError();
    },
  },
  experiments: { disableGroups: async () => ({}) },
  dynamicConfigs: { archive: async () => ({}) },
};

const onReceive = (event: SQSEvent, count: number): SQSEvent => ({
  Records: event.Records.map((r) => ({
    ...r,
    attributes: { ...r.attributes, ApproximateReceiveCount: String(count) },
  })),
});

/** What an operator's `autopilot dlq redrive` does: the body and its attributes back on the queue. */
async function redrive(record: SQSRecord): Promise<void> {
  const attributes: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(record.messageAttributes ?? {}))
    if (value.stringValue !== undefined)
      attributes[name] = { DataType: value.dataType, StringValue: value.stringValue };
  await bench.queue.sqs.send(
    new SendMessageCommand({
      QueueUrl: bench.queue.queueUrl,
      MessageBody: record.body,
      MessageAttributes: attributes,
    }),
  );
}

function channelPostsSince(before: number): string[] {
  return bench.slack.posts
    .slice(before)
    .filter((p) => p.path === '/services/channel')
    .map((p) => JSON.stringify(p.body));
}

it('an approved copy redriven after its question expired is not announced "Denied" when its call may have made the change', async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  await bench.purge();
  const value = await askQuestion(bench, 'trg_rd1', 'rd-asked-1');
  const copyId = await clickApprove(bench, value);
  // The approved copy's call times out after it left, on the record's last receive: given up.
  const copy = await bench.receive();
  expect(copy.Records).toHaveLength(1);
  await bench.run(bench.worker({ client: timingOutClient }), onReceive(copy, MAX_RECEIVE_COUNT));
  expect(JSON.stringify(bench.slack.posts.at(-1)?.body)).toContain('may have reached');
  // SQS moves it to the DLQ on the next receive (made visible at once); its receive count is faked
  // here, so it leaves the queue by hand (the only message there).
  await bench.purge();

  // The question expires (72 hours): the tick sends it back, the worker ends it (with the warning).
  bench.clock.now = new Date('2026-11-26T10:01:00Z');
  expect((await releaseHeld(releaseDeps(bench), bench.clock.now)).released).toContain('rd-asked-1');
  await bench.run(bench.worker(), await bench.receive());

  // An operator redrives the given-up copy from the DLQ: it is past maxDeferHours, so it is denied.
  await redrive(copy.Records[0]!);
  const before = bench.slack.posts.length;
  const approvalsBefore = bench.approvals('trg_rd1');
  // Sent anew now, after the give-up (SQS stamps it; the emulator would stamp the machine's time).
  await bench.run(bench.worker(), sentAt(await bench.receive(), bench.clock.now));

  expect(bench.approvals('trg_rd1')).toBe(approvalsBefore);
  const told = channelPostsSince(before);
  expect(told).toHaveLength(1);
  expect(told[0]).not.toContain('Denied');
  expect(told[0]).toContain('No longer tried, but it may have been done');
  expect(told[0]).toContain('check whether the change was made');
  // The CI gate (and `why`) on the copy's id reads the same warning, not a bare "expired".
  const ended = await outcomeNow(bench.table, copyId);
  expect(ended.result).toBe('denied');
  expect(ended.reason).toContain('check whether the change was made');
});

it('a CI request whose first call may have reached the platform is not announced "Denied" when a freeze stops its retry', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const template = bench.api.sandbox.state.triggers.get('trg_1');
  bench.api.sandbox.state.triggers.set('trg_rd2', {
    ...structuredClone(template!),
    id: 'trg_rd2',
    actions: [],
  });
  await bench.send({ triggerId: 'trg_rd2', phaseId: 'ph_1', requestId: 'rd-ci-1' });
  // The first receive's call times out after it left: retried later (not the last receive).
  const first = await bench.receive();
  const failed = await bench.run(bench.worker({ client: timingOutClient }), onReceive(first, 1));
  expect(failed.batchItemFailures).toHaveLength(1);

  // Before the retry a freeze is declared; the retry is denied by it.
  const frozen = {
    ...basePolicy(bench.slack.origin),
    approvals: {
      ...basePolicy(bench.slack.origin).approvals,
      freezes: [{ name: 'incident', start: '2026-11-24T09:00:00Z', end: '2026-11-25T09:00:00Z' }],
    },
  };
  bench.clock.now = new Date('2026-11-24T10:05:00Z');
  const before = bench.slack.posts.length;
  await bench.run(bench.worker({ policy: frozen }), onReceive(first, 2));

  expect(bench.approvals('trg_rd2')).toBe(0);
  const told = channelPostsSince(before);
  expect(told).toHaveLength(1);
  expect(told[0]).not.toContain('Denied');
  expect(told[0]).toContain('No longer tried, but it may have been done');
  const ended = await outcomeNow(bench.table, 'rd-ci-1');
  expect(ended.result).toBe('denied');
  expect(ended.rule).toBe('freeze:incident');
  expect(ended.reason).toContain('check whether the change was made');
});
