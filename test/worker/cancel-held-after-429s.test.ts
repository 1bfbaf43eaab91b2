/**
 * A held request, sent back on Monday, whose approval call is refused 429 on every attempt (the
 * client retries, every answer a 429): the platform did nothing, a 429 changes nothing. A person
 * can then still `/autopilot cancel` it and is told it is cancelled. The worker used to mark the
 * held item as reached ("only the last answer is known"), so the cancel was refused with "it has
 * been sent … it can no longer be cancelled", though nothing had been done.
 *
 * The real worker and webhook on the emulators; the Console API is the sandbox over HTTP with
 * its injected 429s on every mutation (no Retry-After: the client retries after its backoff).
 */
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile, channelPostsAbout, copyTrigger } from './fixture.js';
import { chatCommand, releaseDeps } from './questions.js';

// Two attempts per call: the retry is refused 429 too.
const bench = benchForFile({ client: { maxRetries: 1 } });

it('a held request whose approval is refused 429 on every attempt can still be cancelled, and ends cancelled', async () => {
  const id = 'cancel-after-429s';
  copyTrigger(bench, 'trg_c429');
  // Deferred on Saturday (outside office hours); sent back by Monday's tick.
  bench.clock.now = new Date('2026-11-28T10:00:00Z');
  await bench.purge();
  await bench.send({ triggerId: 'trg_c429', phaseId: 'ph_1', requestId: id });
  await bench.run(bench.worker(), await bench.receive());
  expect((await listHeld(bench.table)).find((h) => h.requestId === id)?.why).toBe('window');
  bench.clock.now = new Date('2026-11-30T09:00:30Z');
  await releaseHeld(releaseDeps(bench), bench.clock.now);

  const event = await bench.receive();
  const sent = bench.approvals('trg_c429');
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: null, only: 'mutations' });
  try {
    expect((await bench.run(bench.worker(), event)).batchItemFailures).toHaveLength(1);
  } finally {
    bench.api.sandbox.setFaults({ rateLimitRate: 0 });
  }
  expect(bench.approvals('trg_c429') - sent).toBe(2); // both attempts answered 429
  expect(bench.api.sandbox.state.triggers.get('trg_c429')?.actions).toEqual([]);

  const before = bench.slack.posts.length;
  const reply = await chatCommand(bench, `cancel ${id} release called off`);
  expect(reply).toContain('is *cancelled*');
  expect(reply).not.toMatch(/can no longer be cancelled|may (already )?have been|may already be done/);

  // SQS delivers the message again: it ends cancelled, never approved, told as cancelled.
  expect(await bench.run(bench.worker(), event)).toEqual({ batchItemFailures: [] });
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'cancelled', rule: 'cancel' });
  expect(bench.api.sandbox.state.triggers.get('trg_c429')?.actions).toEqual([]);
  const told = channelPostsAbout(bench, id, before);
  expect(told, told.join('\n')).toHaveLength(1);
  expect(told[0]).toContain('Cancelled');
  expect(told[0]).not.toMatch(/may have been done|Done/);
});
