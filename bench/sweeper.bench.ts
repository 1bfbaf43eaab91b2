/**
 * Sweeper benchmarks, against the sandbox over HTTP and the SQS/DynamoDB emulators:
 *
 * 1. Incremental poll: 100,000 events of history (read once by a first run), then 1,000 new
 *    events; one sweeper run (event rules, last-seen, cursor, stale sweep included) against the
 *    raw page reads alone (GET of exactly the pages that hold the new events, no processing).
 *    Requests are counted at the sandbox; target ≤ ceil(k / limit) + 3, the cost README states
 *    (the last request is the end-of-run shift check that keeps events sliding under steady
 *    retention from being lost: src/sweeper/shift-check.ts; + 2 before it). Both event orders,
 *    at limit 100 and 1000.
 * 2. Stale sweep of 10,000 watched configs (30 % stale): wall time and DynamoDB operations
 *    (counted by an SDK middleware: bench/dynamo-requests.ts), against the bare reads of the watch set and index.
 */
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { createConsoleClient } from '../src/console/index.js';
import { startEmulators } from '../src/local/emulators.js';
import { createLogger } from '../src/observability/logger.js';
import { parsePolicy } from '../src/policy/parse.js';
import { startSandbox } from '../src/sandbox/index.js';
import { batchPut } from '../src/state/dynamo-batch.js';
import { loadLastSeen } from '../src/state/last-seen.js';
import { writeCursor } from '../src/state/sweep-cursor.js';
import { createStateTable, ITEM_FAMILIES, type StateTable } from '../src/state/table.js';
import { loadWatchSet } from '../src/state/watch.js';
import { servedOrder } from '../src/sweeper/event-order.js';
import { exposureSettings } from '../src/sweeper/observation.js';
import { createSweeper } from '../src/sweeper/sweeper.js';
import type { EventOrder } from '../src/sweeper/types.js';
import { countRequests } from './dynamo-requests.js';
import type { BenchSection } from './types.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-22T03:00:00.000Z');
const HISTORY = 100_000;
const NEW = 1_000;
const WATCHED = 10_000;
const logger = createLogger({ service: 'bench', sink: () => {} });
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export async function run(): Promise<BenchSection> {
  const emulators = await startEmulators();
  const dynamoOps = new Map<string, number>();
  countRequests(emulators.dynamo, dynamoOps);
  let n = 0;
  const fresh = async (): Promise<{ table: StateTable; queueUrl: string }> => {
    n++;
    await createStateTable(emulators.dynamo, `bench-${n}`);
    const q = await emulators.sqs.send(new CreateQueueCommand({ QueueName: `bench-${n}` }));
    return { table: { client: emulators.dynamo, tableName: `bench-${n}` }, queueUrl: q.QueueUrl as string };
  };
  const rows: BenchSection['rows'] = [];
  const notes: string[] = [];
  try {
    const policy = parsePolicy(
      JSON.parse(await import('node:fs').then((fs) => fs.readFileSync('policy.json', 'utf8'))),
    );
    for (const order of ['newest-first', 'oldest-first'] as EventOrder[]) {
      const running = await startSandbox({
        now: () => NOW,
        eventOrder: order,
        eventCount: HISTORY,
        rateLimits: false,
      });
      try {
        const client = createConsoleClient({ baseUrl: running.url, apiKey: 'sandbox-key', maxRetries: 0 });
        const state = await fresh();
        // Time spent before each step (since the previous one), for a breakdown in the notes.
        let mark = performance.now();
        const spent = new Map<string, number>();
        // Where the sweeper's own walk ends in the request log (its last cursor write): the
        // late-exposure walk (src/sweeper/late-exposures.ts, 6 hours behind) reads after it.
        let walkEnd = 0;
        const hooks = {
          onStep(step: string) {
            const t = performance.now();
            spent.set(step, (spent.get(step) ?? 0) + (t - mark));
            mark = t;
            if (step === 'cursor') walkEnd = running.sandbox.requests.length;
          },
        };
        const sweeper = (pageSize: number) =>
          createSweeper({
            policy,
            events: client.events,
            ...state,
            sqs: emulators.sqs,
            logger,
            pageSize,
            hooks,
          });
        const log = running.sandbox.requests;
        let from = log.length;
        let start = performance.now();
        const first = await sweeper(1000).run({ now: new Date(NOW) });
        const firstMs = performance.now() - start;
        rows.push({
          name: `${order}: first run, ${HISTORY.toLocaleString('en')} events of history (limit 1000)`,
          value: round(firstMs / 1000, 2),
          unit: 's',
          // The pages, the order check, and the end-of-run shift check (+ 1 before it).
          target: `≤ ${Math.ceil(HISTORY / 1000) + 2} requests (${log.length - from} made)`,
          pass: log.length - from <= Math.ceil(HISTORY / 1000) + 2 && first.events.newEvents === HISTORY,
        });
        let t = NOW + 1000;
        for (const limit of [100, 1000]) {
          running.sandbox.addEvents(
            Array.from({ length: NEW }, (_, i) => ({
              timestamp: t + i,
              name: i % 50 === 0 ? 'release_checks_passed' : i % 3 === 0 ? 'config_exposure' : 'page_view',
              source: 'web',
              value: '/',
              userID: `u${i}`,
              metadata:
                i % 50 === 0
                  ? { phase: 'canary', triggerID: `trg_${i}`, phaseID: 'ph_1' }
                  : { config: `cfg_${i % 40}`, i },
            })),
          );
          t += NEW + 1000;
          from = log.length;
          start = performance.now();
          spent.clear();
          mark = start;
          const inc = await sweeper(limit).run({ now: new Date(t) });
          const incMs = performance.now() - start;
          notes.push(
            `${order}, limit ${limit}: time up to each step (ms): ${[...spent].map(([k, v]) => `${k} ${round(v)}`).join(', ')}`,
          );
          const isRead = (r: { path: string }) => r.path === '/console/v1/events';
          const requests = log.slice(from, walkEnd).filter(isRead).length;
          const lateRequests = log.slice(Math.max(from, walkEnd)).filter(isRead).length;
          // Baseline: GET exactly the pages that hold the new events, nothing else.
          const pages = Math.ceil(NEW / limit);
          const total = running.sandbox.state.events.total;
          const startPage = order === 'newest-first' ? 1 : Math.floor((total - NEW) / limit) + 1;
          start = performance.now();
          for (let p = 0; p < pages; p++) await client.events.list({ page: startPage + p, limit });
          const rawMs = performance.now() - start;
          const bound = Math.ceil(NEW / limit) + 3;
          rows.push({
            name: `${order}: run with ${NEW} new events, limit ${limit} — requests of the sweeper's walk`,
            value: requests,
            unit: 'requests',
            target: `≤ ${bound}`,
            pass: requests <= bound && inc.events.newEvents === NEW,
          });
          rows.push({
            name: `${order}: the same run — requests of the late-exposure walk (6 h behind, for the stale sweep)`,
            value: lateRequests,
            unit: 'requests',
          });
          rows.push({
            name: `${order}: run with ${NEW} new events, limit ${limit} — wall time vs raw page reads`,
            value: round(incMs),
            unit: 'ms',
            baseline: round(rawMs),
            ratio: round(incMs / rawMs, 2),
          });
        }
      } finally {
        await running.close();
      }
    }

    // Stale sweep of 10,000 watched configs.
    const running = await startSandbox({ now: () => NOW, eventCount: 0, rateLimits: false });
    try {
      const client = createConsoleClient({ baseUrl: running.url, apiKey: 'sandbox-key', maxRetries: 0 });
      const state = await fresh();
      const watch = [];
      const seen = [];
      for (let i = 0; i < WATCHED; i++) {
        const id = `cfg_${String(i).padStart(5, '0')}`;
        watch.push({
          pk: { S: ITEM_FAMILIES.watch },
          sk: { S: id },
          watchedSince: { N: String(NOW - 60 * DAY) },
          origin: { S: 'discovered' },
        });
        const ago = i % 10 < 3 ? 40 : 2; // 30 % stale
        seen.push({
          pk: { S: ITEM_FAMILIES.lastSeen },
          sk: { S: id },
          lastSeen: { N: String(NOW - ago * DAY) },
        });
      }
      await batchPut(state.table, watch);
      await batchPut(state.table, seen);
      const stalePolicy = parsePolicy({
        version: 1,
        sweeper: {
          staleConfigs: {
            configs: [],
            // The watched configs were discovered in exposures (their origin above).
            discover: true,
            staleAfterDays: 30,
            graceDays: 30,
            maxPerRun: 5,
            dryRun: false,
          },
        },
      });
      await writeCursor(
        state.table,
        {
          boundaryTs: NOW - 1,
          boundaryCounts: {},
          position: 0,
          pageSize: 100,
          totalItems: 0,
          observedSince: NOW - 90 * DAY,
          order: 'newest-first',
          // Exposures have been recorded with these settings all along: a steady state, not a first run.
          exposureSettings: exposureSettings(stalePolicy.sweeper?.staleConfigs),
          recordingSince: null,
        },
        new Date(NOW),
      );
      const sweeper = createSweeper({
        policy: stalePolicy,
        events: client.events,
        ...state,
        sqs: emulators.sqs,
        logger,
      });
      dynamoOps.clear();
      let start = performance.now();
      const summary = await sweeper.run({ now: new Date(NOW) });
      const sweepMs = performance.now() - start;
      const ops = [...dynamoOps.values()].reduce((a, b) => a + b, 0);
      const breakdown = [...dynamoOps].map(([k, v]) => `${k} ${v}`).join(', ');
      start = performance.now();
      await Promise.all([loadWatchSet(state.table), loadLastSeen(state.table)]);
      const readMs = performance.now() - start;
      rows.push({
        name: `stale sweep of ${WATCHED.toLocaleString('en')} watched configs — wall time vs reading watch set + index`,
        value: round(sweepMs),
        unit: 'ms',
        baseline: round(readMs),
        ratio: round(sweepMs / readMs, 2),
      });
      rows.push({
        name: `stale sweep of ${WATCHED.toLocaleString('en')} watched configs — DynamoDB operations`,
        value: ops,
        unit: 'ops',
        target: '≤ 30 (O(items / 1 MB page), not O(configs))',
        pass: ops <= 30 && summary.stale.stale.length === WATCHED * 0.3 && summary.stale.queued.length === 5,
      });
      notes.push(
        `stale sweep DynamoDB operations: ${breakdown}; stale ${summary.stale.stale.length}, queued ${summary.stale.queued.length} (maxPerRun 5), cap-skipped ${summary.stale.skipped.filter((s) => s.reason === 'cap').length}`,
      );
    } finally {
      await running.close();
    }
    notes.push(
      'Requests are counted at the sandbox log. The raw baseline only GETs the pages holding the new events; the sweeper run also evaluates rules, sends SQS messages, writes last-seen and the cursor, and judges staleness.',
    );
    rows.push(...orderCheckRows());
    notes.push(
      'Order check: the pairs of timestamps that go up and down on one page (src/sweeper/event-order.ts), on pages listed by arrival (every tenth event an hour late), median of 21; its baseline is sorting the same timestamps, the floor of any O(n log n) count.',
    );
    return { title: 'Sweeper', rows, notes };
  } finally {
    await emulators.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((section) => console.log(JSON.stringify(section, null, 2)));
}

/** The order check of one page against sorting its timestamps, for a page as served and a huge one. */
function orderCheckRows(): BenchSection['rows'] {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return [1_000, 150_000].map((size) => {
    const base = 1_780_000_000_000;
    const stamps = Array.from({ length: size }, (_, i) =>
      i % 10 === 9 ? base + i * 1000 - 3_600_000 : base + i * 1000,
    );
    const check: number[] = [];
    const sort: number[] = [];
    for (let run = 0; run < 21; run++) {
      let start = performance.now();
      if (servedOrder(stamps) !== 'oldest-first') throw new Error('order check misread the page');
      check.push(performance.now() - start);
      start = performance.now();
      Float64Array.from(stamps).sort();
      sort.push(performance.now() - start);
    }
    return {
      name: `order check of one page of ${size.toLocaleString('en')} events listed by arrival (vs sorting its timestamps)`,
      value: round(median(check), 3),
      unit: 'ms',
      baseline: round(median(sort), 3),
      ratio: round(median(check) / median(sort), 2),
    };
  });
}
