/**
 * Two release ticks at once (an EventBridge invocation retried or overlapping a slow one, the local
 * timer beside a manual `runRelease()`) used to both send a held request back: `markReleased`
 * checked only that the wait was the one read, not that no other tick had released it since. The
 * request then came back twice, its story (`/autopilot why`) told two releases, and the second
 * copy's replay told the requester its outcome again. The release tick and the worker, on the emulators.
 */
import { expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { writePause } from '../../src/state/pause.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from './fixture.js';
import { releaseDeps } from './questions.js';

const bench = benchResetEachTest();

it('sends a held request back once when two ticks run at the same moment', async () => {
  await writePause(bench.table, { paused: true, by: 'slack:U0ADMIN', at: bench.clock.now });
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'rc-tick-1' });
  await bench.run(bench.worker(), await bench.receive());
  expect((await listHeld(bench.table)).map((h) => [h.requestId, h.why])).toEqual([['rc-tick-1', 'paused']]);
  await writePause(bench.table, { paused: false, by: 'slack:U0ADMIN', at: bench.clock.now });

  const tick = releaseDeps(bench);
  const at = new Date('2026-11-23T10:01:00Z');
  const summaries = await Promise.all([releaseHeld(tick, at), releaseHeld(tick, at)]);
  expect(summaries.flatMap((s) => s.released)).toEqual(['rc-tick-1']);
  expect((await bench.receive()).Records).toHaveLength(1);
  const released = (await readAudit(bench.table, 'rc-tick-1')).filter((r) => r.result === 'released');
  expect(released).toHaveLength(1);
  // A later tick, once the retry time has passed, still sends a copy that never came back.
  const later = await releaseHeld(tick, new Date('2026-11-23T10:17:00Z'));
  expect(later.released).toEqual(['rc-tick-1']);
});
