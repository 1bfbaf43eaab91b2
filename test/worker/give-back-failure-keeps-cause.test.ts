/**
 * The table throttled past the SDK's retries fails the audit put of an end and then the put that
 * gives its telling claim back. The record must fail with the audit put's error (what operators
 * read in the failed record's log line), not with the give-back's: the claim not given back runs
 * out by itself (its lease), so its failure is a warning only, and the end is told once (its posts
 * come before the audit record; a later copy records it).
 * The real worker on the emulators.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { expect, it } from 'vitest';
import { postToSlack } from '../../src/slack/post.js';
import { readAudit } from '../../src/state/audit.js';
import type { StateTable } from '../../src/state/table.js';
import { cancelHeldRequest } from '../../src/worker/cancel.js';
import { endCancelledNow } from '../../src/worker/cancel-now.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile, channelPostsAbout, copyTrigger, onReceive } from './fixture.js';
import { releaseDeps } from './questions.js';

const bench = benchForFile();

/** The state table, on which every put of `id`'s `result` audit record and every give-back of a telling claim with a final fail. */
function auditAndGiveBackFailing(id: string, result = 'approved'): StateTable {
  const real = bench.table.client;
  const client = {
    send: async (command: unknown) => {
      if (command instanceof PutItemCommand) {
        const { Item: item, ConditionExpression: condition } = command.input;
        if (item?.requestId?.S === id && item?.result?.S === result)
          throw Object.assign(new Error('audit put throttled'), { name: 'ThrottlingException' });
        if (condition?.includes('#tellOwner = :owner'))
          throw Object.assign(new Error('give-back put throttled'), {
            name: 'ProvisionedThroughputExceededException',
          });
      }
      return real.send(command as never);
    },
  } as unknown as StateTable['client'];
  return { client, tableName: bench.table.tableName };
}

it('a give-back that fails too leaves the record failing with the original error, and a later copy tells once', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();
  const id = 'give-back-fails-1';
  copyTrigger(bench, 'trg_gb');
  const before = bench.slack.posts.length;
  const logsFrom = bench.logs.length;
  await bench.send({ triggerId: 'trg_gb', phaseId: 'ph_1', requestId: id });
  const event = await bench.receive();
  expect(event.Records).toHaveLength(1);

  const failing = bench.worker({ table: auditAndGiveBackFailing(id) });
  expect((await bench.run(failing, onReceive(event, 1))).batchItemFailures).toHaveLength(1);
  expect(bench.approvals('trg_gb')).toBe(1);

  const lines = bench.logs.slice(logsFrom);
  const failed = lines.filter((line) => line.message === 'record failed; it will be retried');
  expect(failed, JSON.stringify(lines)).toHaveLength(1);
  expect(failed[0]!.error).toEqual({ name: 'ThrottlingException', message: 'audit put throttled' });
  const warnings = lines.filter(
    (line) => line.level === 'warn' && JSON.stringify(line).includes('give-back put throttled'),
  );
  expect(warnings, JSON.stringify(lines)).toHaveLength(1);
  expect(warnings[0]!.requestId).toBe(id);
  const warning = JSON.stringify(warnings[0]);
  expect(warning).not.toContain('sandbox-key');
  expect(warning).not.toContain('/services/');
  expect(warning).not.toContain(bench.slack.origin);
  // The posts come before the audit record: the end was told, only its record is missing.
  expect(channelPostsAbout(bench, id, before)).toHaveLength(1);

  // The claim was not given back: it runs out (the invocation, 20 s, plus the lock margin), then a
  // later copy records the end (told already: not posted again); a copy after that replays it
  // without the channel.
  bench.clock.now = new Date('2026-11-24T10:10:00Z');
  expect((await bench.run(bench.worker(), onReceive(event, 2))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(event, 3))).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_gb')).toBe(1);
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'approved')).toHaveLength(1);
});

it('a cancel ended at once (endHeldNow) whose give-back fails too throws the original error and warns; a later copy tells once', async () => {
  const id = 'give-back-fails-2';
  bench.clock.now = new Date('2026-11-23T20:00:00Z'); // outside the CI window: held
  await bench.purge();
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: id });
  await bench.run(bench.worker(), await bench.receive());
  const now = new Date('2026-11-23T20:01:00Z');
  bench.clock.now = now;
  const cancelled = await cancelHeldRequest(
    { table: bench.table, mayCancel: () => true },
    { requestId: id, by: 'cli:alice', reason: 'called off', now },
  );
  if (!cancelled.ok) throw new Error(cancelled.message);
  // The tick sends the marked request back: its copy reaches a worker later.
  await releaseHeld(releaseDeps(bench), now);
  const copy = await bench.receive();
  expect(copy.Records).toHaveLength(1);

  const before = bench.slack.posts.length;
  const warnings: { message: string; fields: { requestId: string; error: unknown } }[] = [];
  const ending = endCancelledNow(
    auditAndGiveBackFailing(id, 'cancelled'),
    cancelled.held,
    cancelled.reason,
    now,
    {
      // Told as the CLI tells: the posts come before the audit record.
      tell: async (urls, message) => {
        for (const url of urls) await postToSlack(url, message, { allowedOrigins: [bench.slack.origin] });
      },
      channelUrl: async () => bench.slack.url('/services/channel'),
      warn: (message, fields) => warnings.push({ message, fields }),
    },
  );
  await expect(ending).rejects.toMatchObject({ name: 'ThrottlingException', message: 'audit put throttled' });
  expect(warnings).toHaveLength(1);
  expect(warnings[0]!.fields.requestId).toBe(id);
  expect(warnings[0]!.fields.error).toMatchObject({ message: 'give-back put throttled' });

  // The end was told, only its record is missing.
  expect(channelPostsAbout(bench, id, before)).toHaveLength(1);

  // The claim runs out (15 minutes): the copy then records the end (told already: not posted again).
  bench.clock.now = new Date('2026-11-23T20:17:00Z');
  expect((await bench.run(bench.worker(), onReceive(copy, 2))).batchItemFailures).toEqual([]);
  expect((await bench.run(bench.worker(), onReceive(copy, 3))).batchItemFailures).toEqual([]);
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Cancelled');
  expect((await readAudit(bench.table, id)).filter((r) => r.result === 'cancelled')).toHaveLength(1);
});
