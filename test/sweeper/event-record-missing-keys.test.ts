/**
 * One event record a client SDK wrote without a `timestamp` (or `name`) key. The record schema
 * reads a null, numeric or list-shaped field leniently so that no record makes its whole page
 * unreadable (src/console/schemas/events.ts), but a key that is absent failed the page's
 * validation: the sweeper's walk stopped at that page on every run (SweeperErrors, every run, with
 * nothing an operator could do), and no event logged after it was ever handed to a rule or
 * recorded as an exposure, until the platform expired it.
 */
import { describe, expect, it } from 'vitest';
import { eventsAsWrittenForTests } from '../helpers/events-as-written.js';
import { checksPassed } from './events.js';
import { drainQueue, NOW, rigForTests, sweepServedAt } from './harness.js';

const MIN = 60_000;

describe('an event record without a timestamp or name key', () => {
  const rig = rigForTests({ eventCount: 10 });
  const records: unknown[] = [];
  const server = eventsAsWrittenForTests(records);

  it('does not stop the walk at its page: the events after it reach the rules', async () => {
    const checks = (at: number, n: number) => checksPassed(at, `trg_${n}`, 'ph_canary');
    records.push(
      checks(NOW - 30 * MIN, 1),
      { name: 'page_view', userID: 'u1' }, // no timestamp key
      { timestamp: String(NOW - 20 * MIN), userID: 'u2' }, // no name key
      checks(NOW - 10 * MIN, 2),
    );
    const { state, summary } = await sweepServedAt(rig, server.url, 10);
    expect(summary.stop).toBe('done');
    expect(summary.events.caughtUp).toBe(true);
    const queued = await drainQueue(rig, state.queueUrl);
    expect(queued.map((r) => r.triggerId).sort()).toEqual(['trg_1', 'trg_2']);
  });
});
