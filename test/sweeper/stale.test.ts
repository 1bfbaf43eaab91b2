/**
 * The stale-config judgment as a table: stale / grace / protect / cap / dry run / observation
 * too short / paused / queued earlier, with the reason template and the request it builds.
 */
import { describe, expect, it } from 'vitest';
import { policySchemas, type StaleConfigsPolicy } from '../../src/policy/schema.js';
import type { WatchEntry } from '../../src/state/watch.js';
import { planStaleSweep, type StaleInput, staleRequestId } from '../../src/sweeper/stale.js';

const DAY = 86_400_000;
const now = new Date('2026-11-22T03:00:00Z');
const T = now.getTime();

function input(overrides: Partial<StaleConfigsPolicy> = {}, extra: Partial<StaleInput> = {}): StaleInput {
  const policy = policySchemas().staleConfigs.parse({
    configs: ['fresh', 'old', 'never', 'checkout_banner', 'newcomer'],
    staleAfterDays: 30,
    graceDays: 30,
    maxPerRun: 5,
    dryRun: false,
    ...overrides,
  });
  const watched = (configId: string, daysAgo: number): [string, WatchEntry] => [
    configId,
    { configId, watchedSince: T - daysAgo * DAY, origin: 'policy' },
  ];
  return {
    policy,
    protect: ['checkout_*'],
    now,
    observedSince: T - 90 * DAY,
    watch: new Map([
      watched('fresh', 100), // exposed 2 days ago
      watched('old', 100), // last exposed 45 days ago
      watched('never', 100), // never exposed
      watched('checkout_banner', 100), // protected, stale
      watched('newcomer', 10), // stale, but watched for 10 days only
    ]),
    lastSeen: new Map([
      ['fresh', T - 2 * DAY],
      ['old', T - 45 * DAY],
      ['checkout_banner', T - 50 * DAY],
      ['newcomer', T - 40 * DAY],
    ]),
    paused: false,
    ...extra,
  };
}

const reasons = (plan: ReturnType<typeof planStaleSweep>) =>
  Object.fromEntries(plan.skipped.map((s) => [s.configId, s.reason]));

describe('the stale sweep plan', () => {
  it('judges nothing stale while no exposure of any config was recorded in the window', () => {
    // Every exposure is older than staleAfterDays: the exposure events likely match nothing logged.
    const quiet = new Map([
      ['old', T - 45 * DAY],
      ['checkout_banner', T - 50 * DAY],
    ]);
    const plan = planStaleSweep(input({}, { lastSeen: quiet }));
    expect(plan.stale).toEqual([]);
    expect(plan.queue).toEqual([]);
    const blocked = plan.skipped.filter((s) => s.reason === 'no exposures recorded');
    expect(blocked.map((s) => s.configId).sort()).toEqual([
      'checkout_banner',
      'fresh',
      'never',
      'newcomer',
      'old',
    ]);
    expect(blocked[0]?.detail).toBe(
      'no event matched exposureEvents in 30 days: check their names and configIdFrom against what the SDKs log',
    );
    expect(planStaleSweep(input({}, { lastSeen: new Map() })).queue).toEqual([]);
    // One config exposed within the window is enough to judge the rest.
    const oneInUse = new Map([...quiet, ['fresh', T - 29 * DAY]]);
    expect(planStaleSweep(input({}, { lastSeen: oneInUse })).queue.map((r) => r.configId)).toEqual([
      'never',
      'old',
    ]);
  });

  it('queues unexposed configs watched past their grace, longest-unexposed first, never protected ones', () => {
    const plan = planStaleSweep(input());
    expect(plan.stale.map((s) => s.configId)).toEqual(['never', 'checkout_banner', 'old', 'newcomer']);
    expect(plan.queue.map((r) => r.configId)).toEqual(['never', 'old']);
    expect(reasons(plan)).toEqual({ checkout_banner: 'protected', newcomer: 'grace' });
  });

  it('never queues a protected config named in another case (a discovered Checkout_Flow under checkout_*)', () => {
    const watch = new Map(input().watch);
    watch.set('Checkout_Flow', {
      configId: 'Checkout_Flow',
      watchedSince: T - 100 * DAY,
      origin: 'discovered',
    });
    const plan = planStaleSweep(input({ discover: true }, { watch }));
    expect(plan.stale.map((s) => s.configId)).toContain('Checkout_Flow');
    expect(plan.queue.map((r) => r.configId)).not.toContain('Checkout_Flow');
    expect(reasons(plan).Checkout_Flow).toBe('protected');
  });

  it('builds the archive request from the policy: reason with {days}, force, schedule requester, stable id', () => {
    const plan = planStaleSweep(input({ forceArchive: true, reason: 'idle {days}d' }));
    expect(plan.queue[1]).toEqual({
      version: 1,
      action: 'archive_config',
      configId: 'old',
      reason: 'idle 45d',
      force: true,
      requestedBy: { source: 'schedule', id: 'stale-config-sweep' },
      requestedAt: now.toISOString(),
      requestId: staleRequestId('old', T - 45 * DAY),
    });
    // Never exposed: days count from the start of observation.
    expect(plan.queue[0]?.reason).toBe('idle 90d');
  });

  it('stops at maxPerRun and says "cap" for the rest', () => {
    const plan = planStaleSweep(input({ maxPerRun: 1, graceDays: 0 }));
    expect(plan.queue.map((r) => r.configId)).toEqual(['never']);
    expect(reasons(plan)).toEqual({ checkout_banner: 'protected', old: 'cap', newcomer: 'cap' });
  });

  it('only reports in dry run, with the same decisions', () => {
    const plan = planStaleSweep(input({ dryRun: true }));
    expect(plan.queue).toEqual([]);
    expect(plan.wouldQueue).toEqual(['never', 'old']);
    expect(plan.dryRun).toBe(true);
  });

  it('judges nothing stale while observation covers less than staleAfterDays', () => {
    const plan = planStaleSweep(input({}, { observedSince: T - 20 * DAY }));
    expect(plan.stale).toEqual([]);
    expect(plan.queue).toEqual([]);
    expect(new Set(plan.skipped.map((s) => s.reason))).toEqual(new Set(['observation too short']));
    expect(plan.skipped).toHaveLength(4);
  });

  it('holds archives while paused and does not queue a stale config twice for the same last exposure', () => {
    const paused = planStaleSweep(input({}, { paused: true }));
    expect(paused.queue).toEqual([]);
    expect(reasons(paused)).toMatchObject({ never: 'paused', old: 'paused' });

    const base = input();
    const watch = new Map(base.watch);
    watch.set('old', {
      ...(watch.get('old') as WatchEntry),
      archiveRequestId: staleRequestId('old', T - 45 * DAY),
    });
    const again = planStaleSweep({ ...base, watch });
    expect(again.queue.map((r) => r.configId)).toEqual(['never']);
    expect(reasons(again).old).toBe('queued earlier');
  });

  it('asks again a denied archive a day after the denial, under the next id; not a vetoed, pending or done one', () => {
    const base = input();
    const asked = staleRequestId('old', T - 45 * DAY);
    const watch = new Map(base.watch);
    watch.set('old', { ...(watch.get('old') as WatchEntry), archiveRequestId: asked });
    const ended = (result: string, rule: string, hoursAgo: number) =>
      new Map([
        [
          asked,
          {
            result,
            rule,
            reason: 'r',
            requestId: asked,
            at: new Date(T - hoursAgo * 3_600_000).toISOString(),
          },
        ],
      ]);
    const plan = (outcomes?: ReturnType<typeof ended>) =>
      planStaleSweep({ ...base, watch, ...(outcomes ? { outcomes } : {}) });

    const again = plan(ended('denied', 'freeze:release', 25));
    expect(again.queue.find((r) => r.configId === 'old')?.requestId).toBe(
      staleRequestId('old', T - 45 * DAY, 1),
    );
    expect(reasons(plan(ended('denied', 'freeze:release', 23))).old).toBe('denied earlier');
    expect(reasons(plan(ended('denied', 'veto', 48))).old).toBe('ended earlier');
    expect(reasons(plan(ended('archived', 'actions.archive_config', 48))).old).toBe('archived');
    expect(reasons(plan()).old).toBe('queued earlier'); // still waiting: no outcome yet

    // The second ask's denial counts from its own mark.
    watch.set('old', {
      ...(watch.get('old') as WatchEntry),
      archiveRequestId: staleRequestId('old', T - 45 * DAY, 1),
    });
    const third = planStaleSweep({
      ...base,
      watch,
      outcomes: new Map([
        [
          staleRequestId('old', T - 45 * DAY, 1),
          {
            result: 'denied',
            rule: 'otherwise',
            reason: 'r',
            requestId: 'x',
            at: new Date(T - 2 * DAY).toISOString(),
          },
        ],
      ]),
    });
    expect(third.queue.find((r) => r.configId === 'old')?.requestId).toBe(
      staleRequestId('old', T - 45 * DAY, 2),
    );
  });

  it('asks again an archive with no end once it is past maxDeferHours and a day (dead-lettered), not before', () => {
    const base = input();
    const asked = staleRequestId('old', T - 45 * DAY);
    const HOUR = 3_600_000;
    const plan = (queuedHoursAgo: number | undefined, extra: Partial<StaleInput> = {}) => {
      const watch = new Map(base.watch);
      watch.set('old', {
        ...(watch.get('old') as WatchEntry),
        archiveRequestId: asked,
        archiveQueuedAt: queuedHoursAgo === undefined ? undefined : T - queuedHoursAgo * HOUR,
      });
      return planStaleSweep({ ...base, watch, outcomes: new Map(), maxDeferHours: 72, ...extra });
    };
    // 72 hours + a day: no worker can carry the first ask out any more; the next id.
    expect(plan(96).queue.find((r) => r.configId === 'old')?.requestId).toBe(
      staleRequestId('old', T - 45 * DAY, 1),
    );
    // Before: it may still be held or retried; skipped with when it is asked again.
    const waiting = plan(95).skipped.find((k) => k.configId === 'old');
    expect(waiting).toEqual({
      configId: 'old',
      reason: 'queued earlier',
      detail: `no end recorded yet; asked again from ${new Date(T + HOUR).toISOString()} if none is by then`,
    });
    // Outcomes not read, no queue time (an older version's mark), or past the audit's retention
    // (its end may have expired): as before, not asked again.
    expect(reasons(plan(96, { outcomes: undefined })).old).toBe('queued earlier');
    expect(reasons(plan(undefined)).old).toBe('queued earlier');
    expect(reasons(plan(90 * 24)).old).toBe('queued earlier');
  });

  it('stops judging a config once it is taken out of `configs`, and discovered ones once discovery is off', () => {
    const base = input({ configs: ['fresh', 'never', 'checkout_banner', 'newcomer'] });
    const watch = new Map(base.watch);
    watch.set('found', { configId: 'found', watchedSince: T - 100 * DAY, origin: 'discovered' });
    const plan = planStaleSweep({ ...base, watch });
    expect(plan.queue.map((r) => r.configId)).toEqual(['never']);
    expect(plan.stale.map((s) => s.configId)).not.toContain('old');
    expect(reasons(plan)).toMatchObject({ old: 'not in policy', found: 'not in policy' });
    // With discovery on, configs seen in exposures are judged again, as discovery would add them.
    const discovering = planStaleSweep({ ...base, watch, policy: { ...base.policy, discover: true } });
    expect(discovering.queue.map((r) => r.configId)).toEqual(['found', 'never', 'old']);
  });

  it('treats a config exposed within the window as fresh, whatever else holds', () => {
    const plan = planStaleSweep(input({ staleAfterDays: 46, graceDays: 0 }));
    expect(plan.stale.map((s) => s.configId)).toEqual(['never', 'checkout_banner']);
    expect(plan.queue.map((r) => r.configId)).toEqual(['never']);
  });
});
