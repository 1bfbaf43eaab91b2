/**
 * Step 5 of a decision, for a stale sweep's archive: it runs only once the sweeper has read the
 * event log up to within the last hour; before that, an exposure the sweeper never read could
 * not stop it (src/policy/stale-sweep.ts).
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { EVENTS_READ_WITHIN_MS } from '../../src/policy/stale-sweep.js';
import { archiveRequest, MONDAY_0930, policyWith } from './fixtures.js';

const policy = policyWith({
  sweeper: { staleConfigs: { configs: ['old_banner'], staleAfterDays: 30, dryRun: false } },
});
const now = new Date(MONDAY_0930);
const request = archiveRequest({
  configId: 'old_banner',
  requestedBy: { source: 'schedule', id: 'stale-config-sweep' },
  requestedAt: '2026-11-23T08:00:00Z',
});
const decideWith = (eventsReadUpTo: number | null | undefined) =>
  decide(policy, { request, now, pause: { paused: false }, eventsReadUpTo });

describe("a stale sweep's archive and how far the sweeper has read", () => {
  it('goes on to the rules when the sweeper read up to within the last hour', () => {
    const fresh = decideWith(now.getTime() - EVENTS_READ_WITHIN_MS);
    expect(fresh.rule).not.toBe('sweeper.staleConfigs');
    expect(fresh.outcome).toBe('approve');
  });

  it('waits 15 minutes, saying since when, while the reading is older or there is none', () => {
    const stale = decideWith(now.getTime() - EVENTS_READ_WITHIN_MS - 1);
    expect(stale).toMatchObject({ outcome: 'defer', rule: 'sweeper.staleConfigs' });
    expect(stale.deferUntil?.toISOString()).toBe('2026-11-23T08:45:00.000Z');
    expect(stale.reason).toContain('last read the event log up to');
    expect(stale.reason).toContain('old_banner');
    expect(decideWith(null)).toMatchObject({ outcome: 'defer', rule: 'sweeper.staleConfigs' });
    expect(decideWith(null).reason).toContain('has not read the event log yet');
  });

  it('is not judged when the decision does not know it (an audit record kept before it was)', () => {
    expect(decideWith(undefined).outcome).toBe('approve');
  });

  it('concerns the stale sweep only: an archive by a person is not held for it', () => {
    const byPerson = { ...request, requestedBy: { source: 'slack' as const, id: 'U0ADMIN' } };
    const decided = decide(policy, {
      request: byPerson,
      now,
      pause: { paused: false },
      eventsReadUpTo: null,
    });
    expect(decided.rule).not.toBe('sweeper.staleConfigs');
  });
});
