/**
 * A held request, sent back on Monday, whose first copy died with its approval call in flight (the
 * call reached the platform and approved the phase; the process was killed before the answer):
 * its effect claim and its executing mark on the held item stay, the claim runs out. The next copy
 * claims the effect (which says an earlier call may have reached the platform), and its own call
 * is refused 429 on every attempt. A 429 changes nothing, but the earlier call may have: a
 * person's `/autopilot cancel` must be refused, never answered "cancelled" about a phase approved.
 * The worker keeps the held item's reached mark for the earlier copy's call too
 * (`claimed.earlierMayHaveReached` in src/worker/process-record.ts); this pins that part.
 *
 * The real worker and webhook on the emulators; the Console API is the sandbox over HTTP (the dead
 * copy's call made with the real client, its 429s injected). The dead copy's claim and mark are
 * written as a killed copy leaves them (as in archive-after-crashed-call.test.ts).
 */
import { expect, it } from 'vitest';
import { type ActionRequest, effectKey } from '../../src/actions/request.js';
import { createConsoleClient } from '../../src/console/index.js';
import { readFinal } from '../../src/state/audit.js';
import { claimEffect } from '../../src/state/effects.js';
import { listHeld } from '../../src/state/held.js';
import { startExecutingHeld } from '../../src/state/held-gates.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile, copyTrigger } from './fixture.js';
import { chatCommand, releaseDeps } from './questions.js';

// Two attempts per call: the retry is refused 429 too.
const bench = benchForFile({ client: { maxRetries: 1 } });

it('a held request whose earlier copy died mid-call cannot be cancelled after its next call is refused 429', async () => {
  const id = 'cancel-after-crash-then-429s';
  copyTrigger(bench, 'trg_crash429');
  // Deferred on Saturday (outside office hours); sent back by Monday's tick.
  bench.clock.now = new Date('2026-11-28T10:00:00Z');
  await bench.purge();
  await bench.send({ triggerId: 'trg_crash429', phaseId: 'ph_1', requestId: id });
  await bench.run(bench.worker(), await bench.receive());
  const held = (await listHeld(bench.table)).find((h) => h.requestId === id);
  expect(held?.why).toBe('window');
  bench.clock.now = new Date('2026-11-30T09:00:30Z');
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  const event = await bench.receive();

  // The first copy: claimed the effect, marked the held item executing, called, and was killed
  // before the answer. Its call approved the phase. Its claim has run out since.
  const now = bench.clock.now.getTime();
  const dead = `${id}/m-dead/u-dead`;
  const key = effectKey(held?.request as ActionRequest);
  expect(
    await claimEffect(bench.table, key, { owner: dead, lockExpiresAt: now - 1, nowMs: now - 60_000 }),
  ).toMatchObject({ claimed: true });
  expect(await startExecutingHeld(bench.table, id, dead)).toEqual({ state: 'go' });
  const console = createConsoleClient({
    baseUrl: bench.api.url,
    apiKey: 'sandbox-key',
    mutationBudget: false,
  });
  await console.releasePipelineTriggers.approve('trg_crash429', { phaseID: 'ph_1' });
  expect(bench.api.sandbox.state.triggers.get('trg_crash429')?.actions).toHaveLength(1);

  // This copy's call is refused 429 on both attempts.
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: null, only: 'mutations' });
  try {
    expect((await bench.run(bench.worker(), event)).batchItemFailures).toHaveLength(1);
  } finally {
    bench.api.sandbox.setFaults({ rateLimitRate: 0 });
  }

  // The phase was approved by the dead copy's call: nobody may be told it is cancelled.
  const reply = await chatCommand(bench, `cancel ${id} release called off`);
  expect(reply).toContain('can no longer be cancelled');
  expect(reply).not.toContain('is *cancelled*');
  expect(await readFinal(bench.table, id)).toBeUndefined();
  expect((await listHeld(bench.table)).find((h) => h.requestId === id)?.cancel).toBeUndefined();
});
