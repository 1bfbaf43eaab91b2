/**
 * The spec does not say in which order `GET /events` lists the log (4.6: `limit` and `page`
 * only; DESIGN: "its order is not specified"). A platform listing events as they arrive puts a
 * client SDK's late batch, stamped earlier, after events stamped later. The walk's order check
 * took one such event for a log served in the wrong order: every run failed on the page that
 * held it (no event rules, no stale judgement) for as long as that page was read, i.e. for good.
 * Now such disorder is counted and the walk goes on: an event listed up to the lookback
 * (15 minutes) behind the newest one read is handed to the rules once; one listed later still
 * triggers no rule (as when it lands behind the cursor of a log kept in timestamp order), and
 * its exposures are recorded by the late-exposure walk.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import type { NewEvent } from '../../src/sandbox/index.js';
import { EMPTY_CURSOR } from '../../src/state/sweep-cursor.js';
import { layOut, startWalk, takeNewEvents } from '../../src/sweeper/event-walk.js';
import { LATE_EXPOSURE_BOUND_MS } from '../../src/sweeper/late-exposures.js';
import type { EventOrder } from '../../src/sweeper/types.js';
import {
  APPROVE_CANARY_RULE,
  DAY,
  drainQueue,
  freshState,
  makeSweeper,
  NOW,
  rigForTests,
  staleAfterADayPolicy,
  stateOf,
} from './harness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

const checks = (at: number, triggerID: string): NewEvent => ({
  timestamp: at,
  name: 'release_checks_passed',
  source: 'ci',
  metadata: { phase: 'canary', triggerID, phaseID: 'phase_canary' },
});
const exposure = (at: number, config: string): NewEvent => ({
  timestamp: at,
  name: 'config_exposure',
  source: 'ios_sdk',
  metadata: { config },
});
const page = (at: number, userID: string): NewEvent => ({ timestamp: at, name: 'page_view', userID });

describe.each(['oldest-first', 'newest-first'] as const)(
  'a log listed by arrival, %s',
  (order: EventOrder) => {
    const rig = rigForTests({ eventOrder: order, eventCount: 0, eventListing: 'arrival' });

    it('hands an event listed up to the lookback late to the rules once, one later to none, and no run fails', async () => {
      rig.sandbox.sandbox.reset();
      const state = await freshState(rig);
      const policy = parsePolicy({
        version: 1,
        actions: {},
        sweeper: { eventRules: [APPROVE_CANARY_RULE] },
      });
      const add = (...events: NewEvent[]) => rig.sandbox.sandbox.addEvents(events);
      const run = (at: number) =>
        makeSweeper(rig, state, { policy, pageSize: 5 }).run({
          now: new Date(at),
          remainingMs: 60_000,
        });
      const approved = async () =>
        (await drainQueue(rig, state.queueUrl)).map((body) => body.triggerId as string).sort();

      for (let i = 0; i < 12; i++) add(page(NOW - HOUR + i * 5 * MIN, `u${i}`));
      const outcomes: string[] = [];
      const outcome = (s: Awaited<ReturnType<typeof run>>) =>
        `stop=${s.stop}${s.error ?? ''} outOfOrder=${s.events.outOfOrder} tooLate=${s.events.tooLate}`;
      outcomes.push(outcome(await run(NOW)));

      // Arrived in this order: the second one stamped 5 minutes before the first.
      add(checks(NOW + 8 * MIN, 'trg_a'), checks(NOW + 3 * MIN, 'trg_b'), checks(NOW + 9 * MIN, 'trg_c'));
      outcomes.push(outcome(await run(NOW + 10 * MIN)));
      const soon = await approved();

      // A batch an hour late among events on time.
      for (let i = 0; i < 12; i++) add(page(NOW + 10 * MIN + i * 5 * MIN, `v${i}`));
      add(
        checks(NOW + 72 * MIN, 'trg_d'),
        checks(NOW + 12 * MIN, 'trg_late'),
        checks(NOW + 73 * MIN, 'trg_e'),
      );
      outcomes.push(outcome(await run(NOW + 75 * MIN)));
      // Nothing new: the pages with the late events are read again, nothing is handed out twice.
      outcomes.push(outcome(await run(NOW + 90 * MIN)));
      const later = await approved();

      expect({ outcomes, soon, later }).toEqual({
        outcomes: [
          'stop=done outOfOrder=0 tooLate=0',
          'stop=done outOfOrder=1 tooLate=0',
          'stop=done outOfOrder=1 tooLate=1',
          expect.stringMatching(/^stop=done /),
        ],
        soon: ['trg_a', 'trg_b', 'trg_c'],
        later: ['trg_d', 'trg_e'],
      });
    });

    it('records exposures listed hours late, so a config only a late client uses is not archived', async () => {
      rig.sandbox.sandbox.reset();
      const state = await freshState(rig);
      const policy = staleAfterADayPolicy('mobile_only');
      const add = (...events: NewEvent[]) => rig.sandbox.sandbox.addEvents(events);
      // Three days of history, both configs in use every hour.
      for (let t = NOW - 3 * DAY; t < NOW; t += HOUR)
        add(exposure(t, 'web_banner'), exposure(t, 'mobile_only'));
      const sweeper = makeSweeper(rig, state, { policy, pageSize: 5 });

      // Hourly runs for two days: the web config's exposures arrive on time, six an hour, the
      // mobile app's three hours after it stamped them (listed after the web ones stamped later).
      const stops = new Set<string>();
      const queued: string[] = [];
      for (let t = NOW; t <= NOW + 2 * DAY; t += HOUR) {
        for (let m = 50; m >= 0; m -= 10) add(exposure(t - m * MIN - MIN, 'web_banner'));
        if (t > NOW) add(exposure(t - 3 * HOUR, 'mobile_only'));
        const summary = await sweeper.run({ now: new Date(t), remainingMs: 60_000 });
        stops.add(`${summary.stop} judged=${summary.stale.judged}${summary.error ?? ''}`);
        queued.push(...summary.stale.queued);
      }
      const { lastSeen } = await stateOf(state.table);
      expect({ stops: [...stops], queued }).toEqual({ stops: ['done judged=true'], queued: [] });
      expect(await drainQueue(rig, state.queueUrl)).toEqual([]);
      // Recorded once the late walk, 6 hours behind, has read where it was listed (within a run).
      expect(lastSeen.get('mobile_only')).toBeGreaterThanOrEqual(
        NOW + 2 * DAY - LATE_EXPOSURE_BOUND_MS - 3 * HOUR - HOUR,
      );
    });
  },
);

describe('the late-exposure walk over a log listed by arrival', () => {
  /** One page of exposures stamped `stamps`, in the order listed, walked up to the late walk's edge. */
  function walkOver(stamps: number[]) {
    const until = NOW - LATE_EXPOSURE_BOUND_MS;
    const served = stamps.map((at) => ({
      timestamp: String(at),
      name: 'config_exposure',
      metadata: { config: 'mobile_only' },
    }));
    const read = layOut(served, 1, served.length, served.length, 'oldest-first');
    const walk = startWalk(EMPTY_CURSOR, read, until, false, until, NOW + 5 * MIN);
    const { newEvents } = takeNewEvents(read, walk);
    return { handedOut: newEvents.map((e) => e.ts), reachedEdge: walk.reachedUntil };
  }

  it('is not ended by an event a client stamped days ahead (listed mid-log, it would stop the walk there for days)', () => {
    expect(walkOver([NOW - 9 * HOUR, NOW + 3 * DAY, NOW - 8 * HOUR])).toEqual({
      handedOut: [NOW - 9 * HOUR, NOW - 8 * HOUR],
      reachedEdge: false,
    });
    // An event stamped after the edge and before the run's time does end it.
    expect(walkOver([NOW - 9 * HOUR, NOW + 3 * DAY, NOW - 8 * HOUR, NOW - 2 * HOUR])).toEqual({
      handedOut: [NOW - 9 * HOUR, NOW - 8 * HOUR],
      reachedEdge: true,
    });
  });
});
