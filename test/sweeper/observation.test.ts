/**
 * What the sweeper observes, over an in-memory event log kept in timestamp order (as the
 * platform keeps it; client SDKs stamp events): an event logged late or stamped by a device with
 * a wrong clock is still handed out once, observation of exposures starts when recording with
 * the current settings started, and a gap of events that expired unread restarts it. Clocks are
 * injected; nothing depends on the machine's.
 */
import { describe, expect, it } from 'vitest';
import type { PolicyInput } from '../../src/policy/schema.js';
import type { EventLike } from '../../src/sweeper/types.js';
import {
  APPROVE_CANARY_RULE,
  DAY,
  drainQueue,
  freshState,
  NOW,
  rigForTests,
  schedulePolicy,
  stateOf,
  sweepsOver,
} from './harness.js';

const MIN = 60_000;

const event = (ts: number, name = 'page_view', metadata?: Record<string, unknown>): EventLike => ({
  timestamp: String(ts),
  name,
  ...(metadata ? { metadata } : {}),
});

describe('what the sweeper observes', () => {
  const rig = rigForTests({ eventCount: 10 });

  async function runner(sweeper: PolicyInput['sweeper'], log: () => EventLike[]) {
    const state = await freshState(rig);
    return { state, run: sweepsOver(rig, state, schedulePolicy(sweeper), log) };
  }

  it('hands out once an event logged after a run with a timestamp just before the newest one read', async () => {
    const log = [event(NOW - 10 * MIN), event(NOW - MIN)];
    const { state, run } = await runner(
      {
        eventRules: [APPROVE_CANARY_RULE],
        staleConfigs: { discover: true, dryRun: true },
      },
      () => log,
    );
    await run(NOW);
    log.push(
      event(NOW - 3 * MIN, 'config_exposure', { config: 'cfg_mobile' }),
      event(NOW - 3 * MIN, 'release_checks_passed', { triggerID: 't1', phaseID: 'p1' }),
    );
    const second = await run(NOW + 60 * MIN);
    const third = await run(NOW + 61 * MIN);
    const queued = await drainQueue(rig, state.queueUrl);
    expect({
      newEvents: [second.events.newEvents, third.events.newEvents],
      lastSeen: Object.fromEntries((await stateOf(state.table)).lastSeen),
      queued: queued.map((b) => b.action),
    }).toEqual({ newEvents: [2, 0], lastSeen: { cfg_mobile: NOW - 3 * MIN }, queued: ['approve_phase'] });
  });

  it('keeps reading exposures after one event stamped a year ahead (a client with a wrong clock)', async () => {
    const log = [event(NOW - 60 * DAY)];
    const { state, run } = await runner(
      { staleConfigs: { configs: ['cfg_busy'], staleAfterDays: 30, graceDays: 30, dryRun: false } },
      () => log,
    );
    await run(NOW);
    log.push({ ...event(NOW + 365 * DAY), source: 'bad-clock-device' });
    const withFuture = await run(NOW + DAY);
    for (let d = 2; d <= 40; d++) {
      log.push(event(NOW + d * DAY, 'config_exposure', { config: 'cfg_busy' }));
      await run(NOW + d * DAY + MIN);
    }
    const { lastSeen, cursor } = await stateOf(state.table);
    const archives = (await drainQueue(rig, state.queueUrl)).filter((b) => b.action === 'archive_config');
    expect(withFuture.events.newEvents).toBe(1);
    expect({ lastSeen: lastSeen.get('cfg_busy'), archives, boundaryTs: cursor?.boundaryTs }).toEqual({
      lastSeen: NOW + 40 * DAY,
      archives: [],
      boundaryTs: NOW + 40 * DAY,
    });
  });

  it('does not archive a config exposed 5 days before the stale sweep was turned on', async () => {
    const log = [
      event(NOW - 60 * DAY),
      event(NOW - 5 * DAY, 'config_exposure', { config: 'cfg_in_use' }),
      event(NOW - DAY),
    ];
    const { state, run } = await runner({}, () => log);
    await run(NOW);
    const withStale = schedulePolicy({
      staleConfigs: { configs: ['cfg_in_use'], staleAfterDays: 30, graceDays: 7, dryRun: false },
    });
    await run(NOW, withStale);
    const later = await run(NOW + 7 * DAY, withStale);
    const archives = (await drainQueue(rig, state.queueUrl)).filter((b) => b.action === 'archive_config');
    expect(archives).toEqual([]);
    expect(later.stale.stale).toEqual([]);
    expect(later.stale.skipped).toEqual([
      {
        configId: 'cfg_in_use',
        reason: 'observation too short',
        detail: 'exposures observed for 8 of 30 days',
      },
    ]);
  });

  it('does not judge a config stale from a log with a gap it never read', async () => {
    let log = [event(NOW - 120 * DAY), event(NOW - 61 * DAY)];
    const { run } = await runner(
      { staleConfigs: { configs: ['cfg_x'], staleAfterDays: 30, graceDays: 30, dryRun: true } },
      () => log,
    );
    await run(NOW - 60 * DAY);
    log = [event(NOW - 20 * DAY), event(NOW - 10 * DAY), event(NOW - DAY)]; // cfg_x's exposure 25 days ago expired unread
    const summary = await run(NOW);
    expect(summary.events.caughtUp).toBe(true);
    expect(summary.stale.stale).toEqual([]);
    // Observation starts again at the events after the gap, from the last of them that follows a
    // silence of more than three days: they are history, vouched for by client timestamps only.
    expect(summary.stale.skipped).toEqual([
      { configId: 'cfg_x', reason: 'observation too short', detail: 'exposures observed for 1 of 30 days' },
    ]);
  });
});
