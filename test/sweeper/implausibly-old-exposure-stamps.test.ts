/**
 * Client SDKs stamp events, and a log listed by arrival lists an event where it was logged. An
 * exposure stamped in seconds instead of milliseconds (January 1970) or by a device whose clock
 * was reset (2000) was recorded at its stamp: the config it names looked unused for decades and
 * was archived while that client used it every hour. Listed after events stamped later, such an
 * exposure was logged after them: stamped more than the late walk's reach (6 hours) behind its
 * place in the log, it counts as seen at the newest stamp listed before it (never later than the
 * run's time), never earlier than its own stamp.
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

const exposure = (at: number, config: string, source = 'web_sdk'): NewEvent => ({
  timestamp: at,
  name: 'config_exposure',
  source,
  metadata: { config },
});

describe.each(['oldest-first', 'newest-first'] as const)(
  'a log listed by arrival, %s',
  (order: EventOrder) => {
    const rig = rigForTests({ eventOrder: order, eventCount: 0, eventListing: 'arrival' });
    const add = (...events: NewEvent[]) => rig.sandbox.sandbox.addEvents(events);

    it('does not archive a config whose every exposure an SDK stamps in seconds', async () => {
      rig.sandbox.sandbox.reset();
      const state = await freshState(rig);
      const run = (at: number) =>
        makeSweeper(rig, state, {
          policy: staleAfterADayPolicy('android_promo'),
          pageSize: 5,
        }).run({
          now: new Date(at),
          remainingMs: 60_000,
        });
      const inSeconds = (t: number) => exposure(Math.floor(t / 1000), 'android_promo', 'android_sdk');
      // Three days of history: each hour the web app's exposure, then the Android app's.
      for (let t = NOW - 3 * DAY; t <= NOW - 2 * HOUR; t += HOUR)
        add(exposure(t, 'web_banner'), inSeconds(t));
      const queued = [(await run(NOW - 2 * HOUR)).stale.queued];
      // Two hours on, the same every half hour.
      for (let t = NOW - HOUR; t <= NOW - MIN; t += 30 * MIN) add(exposure(t, 'web_banner'), inSeconds(t));
      queued.push((await run(NOW)).stale.queued);

      const { lastSeen } = await stateOf(state.table);
      const archives = (await drainQueue(rig, state.queueUrl)).map((body) => body.configId);
      expect({ queued, archives, lastSeen: lastSeen.get('android_promo') }).toEqual({
        queued: [[], []],
        archives: [],
        lastSeen: NOW - 30 * MIN,
      });
    });

    it('does not archive a config whose last use came from a device with its clock reset to 2000', async () => {
      rig.sandbox.sandbox.reset();
      const state = await freshState(rig);
      const run = (at: number) =>
        makeSweeper(rig, state, {
          policy: staleAfterADayPolicy('kiosk_layout'),
          pageSize: 5,
        }).run({
          now: new Date(at),
          remainingMs: 60_000,
        });
      // Three days of history; the kiosk layout was last used 20 hours ago.
      for (let t = NOW - 3 * DAY; t <= NOW - 2 * HOUR; t += HOUR) {
        add(exposure(t, 'web_banner'));
        if (t <= NOW - 20 * HOUR) add(exposure(t, 'kiosk_layout', 'kiosk'));
      }
      const queued = [(await run(NOW - 2 * HOUR)).stale.queued];
      // A kiosk that rebooted into the year 2000 shows the layout, between web exposures on time.
      add(exposure(NOW - 90 * MIN, 'web_banner'));
      add(exposure(Date.parse('2000-01-01T00:05:00.000Z'), 'kiosk_layout', 'kiosk'));
      for (let t = NOW - 60 * MIN; t <= NOW - MIN; t += 10 * MIN) add(exposure(t, 'web_banner'));
      queued.push((await run(NOW)).stale.queued);
      // Six hours on: a day since the layout's last use by the stamps, 7.5 hours by the log.
      for (let t = NOW + HOUR; t <= NOW + 6 * HOUR; t += HOUR) add(exposure(t - MIN, 'web_banner'));
      queued.push((await run(NOW + 6 * HOUR)).stale.queued);

      const { lastSeen } = await stateOf(state.table);
      const archives = (await drainQueue(rig, state.queueUrl)).map((body) => body.configId);
      expect({ queued, archives, lastSeen: lastSeen.get('kiosk_layout') }).toEqual({
        queued: [[], [], []],
        archives: [],
        lastSeen: NOW - 90 * MIN,
      });
    });
  },
);
