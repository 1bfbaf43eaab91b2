/**
 * A log listed by arrival: a client's late batch is listed after events stamped later. The
 * sweeper's own walk reads such an exposure (it comes as `late`: older than the lookback, too late
 * for the event rules) but dropped it; only the late-exposure walk, 6 hours behind, recorded it.
 * A config back in use through that client was judged stale meanwhile, in the very run that had
 * read its exposure, and its archive queued (the worker then found no exposure either).
 */
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/sandbox/index.js';
import type { EventOrder } from '../../src/sweeper/types.js';
import {
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
const DAY = 24 * HOUR;

const exposure = (at: number, config: string): NewEvent => ({
  timestamp: at,
  name: 'config_exposure',
  source: 'sdk',
  metadata: { config },
});

describe.each(['oldest-first', 'newest-first'] as const)(
  'a log listed by arrival, %s',
  (order: EventOrder) => {
    const rig = rigForTests({ eventOrder: order, eventCount: 0, eventListing: 'arrival' });

    it('records an exposure the sweeper’s walk read listed late, before judging the config stale', async () => {
      rig.sandbox.sandbox.reset();
      const state = await freshState(rig);
      const policy = staleAfterADayPolicy('mobile_only');
      const add = (...events: NewEvent[]) => rig.sandbox.sandbox.addEvents(events);
      const sweeper = makeSweeper(rig, state, { policy, pageSize: 5 });
      // Three days of history: the web config every hour, the mobile one until 25 hours ago.
      for (let t = NOW - 3 * DAY; t <= NOW - 2 * HOUR; t += HOUR) {
        add(exposure(t, 'web_banner'));
        if (t <= NOW - 25 * HOUR) add(exposure(t, 'mobile_only'));
      }
      const first = await sweeper.run({ now: new Date(NOW - 2 * HOUR), remainingMs: 60_000 });
      expect({ judged: first.stale.judged, queued: first.stale.queued }).toEqual({
        judged: true,
        queued: [],
      });
      await drainQueue(rig, state.queueUrl);

      // Two hours on: the web exposures on time, then the mobile app's batch, stamped 3 hours ago.
      for (let t = NOW - 110 * MIN; t <= NOW - MIN; t += 10 * MIN) add(exposure(t, 'web_banner'));
      add(exposure(NOW - 3 * HOUR, 'mobile_only'));
      const second = await sweeper.run({ now: new Date(NOW), remainingMs: 60_000 });

      const { lastSeen } = await stateOf(state.table);
      const archives = (await drainQueue(rig, state.queueUrl)).map((body) => body.configId);
      expect({
        judged: second.stale.judged,
        queued: second.stale.queued,
        archives,
        mobileLastSeen: lastSeen.get('mobile_only'),
      }).toEqual({ judged: true, queued: [], archives: [], mobileLastSeen: NOW - 3 * HOUR });
    });
  },
);
