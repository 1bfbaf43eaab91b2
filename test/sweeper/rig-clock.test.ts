/**
 * The sweeper rig's one clock. Tests over the sandbox's HTTP gave each run its time but kept the
 * sweeper's default clock (`Date.now`) and a Console client on the machine's clock: on a machine
 * whose date lay before the runs' times, the sweeper took its own cursor for one written by a run
 * ahead of the clock and read its stored times as "now" (sweeper-crash's rerun then said "No
 * exposures for 2517 days" on 2020-01-01, where the clean run said 89). A run the rig gives its
 * time now runs on that time: sweeper, Console client and sandbox read the rig's clock.
 */
import { describe, expect, it } from 'vitest';
import { DAY, freshState, makeSweeper, memoryLogger, policyWith, rigForTests } from './harness.js';

// Years after any machine running this suite: a run "ahead of the clock" if the sweeper read the machine's.
const LATER = Date.parse('2040-03-01T03:00:00.000Z');

describe('a sweeper the rig drives at the time each run is given', () => {
  const rig = rigForTests({ eventCount: 50 });

  it('runs on that time, whatever the machine’s date: its own cursor is never ahead of its clock', async () => {
    const state = await freshState(rig);
    const { logger, lines } = memoryLogger();
    const sweeper = makeSweeper(rig, state, { policy: policyWith(rig), logger });
    await sweeper.run({ now: new Date(LATER), remainingMs: 60_000 });
    const second = await sweeper.run({ now: new Date(LATER + DAY), remainingMs: 60_000 });
    const warnings = lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect({ warnings, stop: second.stop }).toEqual({ warnings: [], stop: 'done' });
  });
});
