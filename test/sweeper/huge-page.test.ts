/**
 * A page of `GET /events` is as large as the platform serves it: SWEEPER_PAGE_SIZE has no maximum,
 * and a platform may ignore `limit` (src/sweeper/event-order.ts reads such pages). The sweeper
 * added a page's new events to its pending flush with `push(...page.newEvents)`, one argument per
 * event: a page of some 150,000 new events threw "Maximum call stack size exceeded" before its
 * cursor was written, so every later run met the same page and failed the same way.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventLike, EventsSource } from '../../src/sweeper/types.js';
import { canaryRulePolicy, freshState, makeSweeper, NOW, type Rig, startRig } from './harness.js';

const EVENTS = 300_000;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({ eventCount: 10 });
});
afterAll(async () => {
  await rig?.close();
});

/** The whole log on every page, oldest first, whatever `limit` asked. */
function ignoringLimit(log: EventLike[]): EventsSource {
  return {
    async list({ page }) {
      const data = page === 1 ? log : [];
      return { data, pagination: { itemsPerPage: log.length, pageNumber: page, totalItems: log.length } };
    },
  };
}

it('reads a page of 300,000 new events to its end', async () => {
  const state = await freshState(rig);
  // One event a second up to a minute ago: the recent window holds few of them.
  const log: EventLike[] = Array.from({ length: EVENTS }, (_, i) => ({
    timestamp: String(NOW - 60_000 - (EVENTS - i) * 1000),
    name: 'page_view',
    userID: `u${i}`,
  }));
  const sweeper = makeSweeper(rig, state, {
    policy: canaryRulePolicy({ staleConfigs: false }),
    events: ignoringLimit(log),
    clock: () => NOW,
    pageSize: 1000,
  });
  const summary = await sweeper.run({ now: new Date(NOW), remainingMs: 600_000 });
  expect(summary.events.newEvents).toBe(EVENTS);
  expect(summary.events.caughtUp).toBe(true);
}, 300_000);
