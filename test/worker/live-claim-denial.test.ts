/**
 * A request denied by the policy while *another* request holds a live claim on the same effect
 * (it is between its claim and its call, or calling now) was told ":warning: No longer tried, but
 * it may have been done … an attempt may have reached the Console API: check whether the change
 * was made", and its final (what its CI gate and `why` read) said so too. The denied request never
 * made an attempt; the other request tells its own outcome. Here that other request's call is
 * refused with a 429 (nothing reached the platform), so nothing could have been done at all, yet
 * the denied request's people were told it may have been. The real worker on the emulators.
 */
import type { SQSEvent } from 'aws-lambda';
import { expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { RateLimitError } from '../../src/console/index.js';
import { benchForFile } from './fixture.js';

const bench = benchForFile();

it('a denial while another request holds a live claim on the effect is told "Denied", not "may have been done"', async () => {
  bench.clock.now = new Date('2026-11-24T10:00:00Z'); // a Tuesday, in office hours
  await bench.purge();

  // Request A's approve call waits until the test lets it go, then is refused with a 429.
  let entered!: () => void;
  const inCall = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const path = '/console/v1/release_pipeline_triggers/trg_lc/approve';
  const gatedClient = {
    releasePipelineTriggers: {
      approve: async () => {
        entered();
        await gate;
        throw new RateLimitError({ status: 429, headers: {}, body: {}, method: 'PUT', path }, undefined);
      },
    },
    experiments: { disableGroups: async () => ({}) },
    dynamicConfigs: { archive: async () => ({}) },
  };

  await bench.send({ triggerId: 'trg_lc', phaseId: 'ph_1', requestId: 'lc-a' });
  const a = await bench.receive();
  expect(a.Records).toHaveLength(1);
  const aRun = bench.run(bench.worker({ client: gatedClient }), a);
  await inCall;

  // Request B for the same phase, from a requester the policy denies, arrives meanwhile.
  await bench.send({
    triggerId: 'trg_lc',
    phaseId: 'ph_1',
    requestId: 'lc-b',
    requestedBy: { source: 'ci', id: 'blocked' },
  });
  const before = bench.slack.posts.length;
  const b: SQSEvent = await bench.receive();
  expect(b.Records).toHaveLength(1);
  await bench.run(bench.worker(), b);

  letGo();
  expect((await aRun).batchItemFailures).toHaveLength(1); // A is retried later: nothing happened.
  expect(bench.approvals('trg_lc')).toBe(0);

  const told = bench.slack.posts
    .slice(before)
    .filter((p) => p.path === '/services/channel')
    .map((p) => JSON.stringify(p.body))
    .filter((body) => body.includes('lc-b'));
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('Denied');
  expect(told[0]).not.toContain('may have been done');
  const ended = await outcomeNow(bench.table, 'lc-b');
  expect(ended).toMatchObject({ result: 'denied', rule: 'blocked CI is denied' });
  expect(ended.reason).not.toContain('check whether the change was made');
});
