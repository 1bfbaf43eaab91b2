/**
 * An events page element that is not a record (null, a string, a number, a list) reads as an
 * empty record since f11472a, kept in its place so that the walk goes on; no rule or exposure
 * reads it. But nothing says it happened: the run's summary line has no count of them and no
 * warning names them, so a platform serving broken entries (a serializer bug, a storage fault)
 * makes the sweeper pass events by silently. Rules that should have queued approvals do not,
 * exposures are not recorded (a config in use may look stale), and SweeperLag reads 0: an
 * operator asked "why did the rule not fire?" finds a clean run. The sweeper's handler over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { eventsAsWrittenForTests } from '../helpers/events-as-written.js';
import { checksPassed } from './events.js';
import {
  canaryRulePolicy,
  consoleEventsAt,
  freshState,
  handleAtNow,
  makeSweeper,
  memoryLogger,
  NOW,
  rigForTests,
} from './harness.js';

const MIN = 60_000;

describe('events page elements that are not records', () => {
  const rig = rigForTests({ eventCount: 10 });
  const records: unknown[] = [];
  const server = eventsAsWrittenForTests(records);

  it('are counted in the run summary and named by a warning', async () => {
    const checks = (at: number, n: number) => checksPassed(at, `trg_${n}`, 'ph_canary');
    records.push(
      checks(NOW - 30 * MIN, 1),
      null,
      'release_checks_passed',
      42,
      [{}],
      checks(NOW - 10 * MIN, 2),
    );
    const state = await freshState(rig);
    const policy = canaryRulePolicy({ staleConfigs: false });
    const { logger, lines } = memoryLogger();
    const sweeper = makeSweeper(rig, state, {
      policy,
      events: consoleEventsAt(server.url),
      clock: () => NOW,
      logger,
    });
    const summary = await handleAtNow(sweeper);
    expect(summary.stop).toBe('done');
    expect(summary.events.eventsRead).toBe(6);

    // Four of the six elements were not records: the summary line counts them...
    const line = lines.find((l) => l.message === 'sweeper run summary');
    expect(JSON.stringify(line?.summary), 'the summary line').toMatch(/"(unreadable|notRecords?)\w*":4/);
    // ...and a warning says what was passed by, for the operator to take to the platform.
    const warned = lines.filter((l) => l.level === 'warn').map((l) => String(l.message));
    expect(
      warned.some((m) => /not a record|unreadable|not an object/i.test(m)),
      warned.join('\n'),
    ).toBe(true);
  });
});
