/**
 * One element of an events page's `data` that is not a record: `null`, a string, a number or a
 * list (a client SDK or the platform's storage writing a broken entry). The page's validation
 * failed on it, so the sweeper's walk stopped at that page on every run (SweeperErrors, with
 * nothing an operator could do): no event after it was ever handed to a rule, no exposure
 * recorded, nothing judged, until the platform expired it. It reads as an empty record instead,
 * in its place (pagination and counts stay right), which no rule or exposure reads.
 */
import { describe, expect, it } from 'vitest';
import { readCursor } from '../../src/state/sweep-cursor.js';
import { eventsAsWrittenForTests } from '../helpers/events-as-written.js';
import { checksPassed } from './events.js';
import { drainQueue, NOW, rigForTests, sweepServedAt } from './harness.js';

const MIN = 60_000;

describe('an events page element that is not a record', () => {
  const rig = rigForTests({ eventCount: 10 });
  const records: unknown[] = [];
  const server = eventsAsWrittenForTests(records);

  it('does not stop the walk at its page: the events after it reach the rules', async () => {
    const checks = (at: number, n: number) => checksPassed(at, `trg_${n}`, 'ph_canary');
    records.push(
      checks(NOW - 30 * MIN, 1),
      null,
      'release_checks_passed',
      42,
      [{ timestamp: String(NOW - 15 * MIN), name: 'release_checks_passed' }],
      checks(NOW - 10 * MIN, 2),
      // The next page: the walk goes on past the first.
      ...Array.from({ length: 4 }, (_, i) => checks(NOW - (9 - i) * MIN, 3 + i)),
    );
    const { state, summary } = await sweepServedAt(rig, server.url, 6);
    expect(summary.stop).toBe('done');
    expect(summary.events.caughtUp).toBe(true);
    // Every element keeps its place: the cursor stands after all ten.
    expect((await readCursor(state.table))?.position).toBe(10);
    const queued = await drainQueue(rig, state.queueUrl);
    expect(queued.map((r) => r.triggerId).sort()).toEqual([
      'trg_1',
      'trg_2',
      'trg_3',
      'trg_4',
      'trg_5',
      'trg_6',
    ]);
  });
});
