/**
 * The last-seen index records every config id an exposure event names that could be one (a client
 * SDK writes it: watched or not, discovered or not), so it grows with what clients log. The stale
 * judgment took the newest exposure with `Math.max(...lastSeen.values())`, one argument per
 * config: from some 150,000 ids it threw "Maximum call stack size exceeded", and every run that
 * judged staleness failed from then on (the index only grows).
 */
import { expect, it } from 'vitest';
import { policySchemas } from '../../src/policy/schema.js';
import type { WatchEntry } from '../../src/state/watch.js';
import { planStaleSweep } from '../../src/sweeper/stale.js';

const DAY = 86_400_000;
const now = new Date('2026-11-22T03:00:00Z');
const T = now.getTime();

it('judges staleness with 300,000 config ids in the last-seen index', () => {
  const lastSeen = new Map<string, number>();
  for (let i = 0; i < 300_000; i++) lastSeen.set(`client-wrote-${i}`, T - DAY);
  lastSeen.set('old', T - 45 * DAY);
  const watch = new Map<string, WatchEntry>([
    ['old', { configId: 'old', watchedSince: T - 100 * DAY, origin: 'policy' }],
  ]);
  const plan = planStaleSweep({
    policy: policySchemas().staleConfigs.parse({
      configs: ['old'],
      staleAfterDays: 30,
      graceDays: 30,
      maxPerRun: 5,
      dryRun: false,
    }),
    protect: [],
    now,
    observedSince: T - 90 * DAY,
    watch,
    lastSeen,
    paused: false,
  });
  expect(plan.queue.map((r) => r.configId)).toEqual(['old']);
});
