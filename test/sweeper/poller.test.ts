/**
 * The event poller against the sandbox over HTTP, in both page orders: it reads every event
 * exactly once across runs, its cost follows the new events (asserted at the sandbox's request
 * log), equal timestamps across a page boundary are neither lost nor doubled, events arriving
 * mid-run are picked up, and a change of order between runs is detected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { type RunningSandbox, type NewEvent as SandboxEvent, startSandbox } from '../../src/sandbox/index.js';
import type { Cursor } from '../../src/state/sweep-cursor.js';
import { EventOrderError } from '../../src/sweeper/errors.js';
import type { PollEnd } from '../../src/sweeper/event-walk.js';
import { eventHash } from '../../src/sweeper/identity.js';
import { createPoller } from '../../src/sweeper/poller.js';
import type { EventLike, EventOrder, EventsSource } from '../../src/sweeper/types.js';
import { NOW } from './harness.js';

const logger = createLogger({ service: 'poller-test', sink: () => {} });

/** Identities of every event in the log, computed independently from the sandbox's own list. */
function expectedIds(all: EventLike[], order: EventOrder): string[] {
  const oldestFirst = order === 'oldest-first' ? all : [...all].reverse();
  const seen = new Map<string, number>();
  return oldestFirst.map((event) => {
    const hash = eventHash(event);
    const n = seen.get(hash) ?? 0;
    seen.set(hash, n + 1);
    return `${hash}.${n}`;
  });
}

async function poll(
  events: EventsSource,
  cursor: Cursor | undefined,
  options: { pageSize?: number; order?: 'auto' | EventOrder; maxPages?: number; onPage?: () => void } = {},
) {
  const poller = createPoller({
    events,
    pageSize: options.pageSize ?? 100,
    order: options.order ?? 'auto',
    cursor,
    deadline: Date.now() + 60_000,
    now: NOW + 86_400_000,
    logger,
    ...(options.maxPages ? { maxPages: options.maxPages } : {}),
  });
  const ids: string[] = [];
  let last = cursor;
  const pages = poller.pages();
  let end: PollEnd | undefined;
  for (let i = 0; i < 10_000; i++) {
    const r = await pages.next();
    if (r.done) {
      end = r.value;
      break;
    }
    ids.push(...r.value.newEvents.map((e) => e.id));
    last = r.value.cursor;
    options.onPage?.();
  }
  return { ids, cursor: last, end: end as PollEnd, stats: poller.stats };
}

describe.each(['newest-first', 'oldest-first'] as const)('the event poller, %s', (order) => {
  let running: RunningSandbox;
  let events: EventsSource;
  const log = () => running.sandbox.requests.filter((r) => r.path === '/console/v1/events');
  const all = () => running.sandbox.state.events.all() as EventLike[];
  let ts = NOW;
  const add = (n: number, at?: number, extra: Partial<EventLike> = {}) => {
    const batch = Array.from({ length: n }, (_, i) => ({
      timestamp: String(at ?? ++ts),
      name: 'page_view',
      source: 'web',
      value: `/p/${ts}/${i}`,
      userID: `u${i}`,
      metadata: { i },
      ...extra,
    }));
    running.sandbox.addEvents(batch as SandboxEvent[]);
  };

  // Each case starts where the previous one left the log: caught up by `catchUp()`.
  let shared: Cursor | undefined;
  const catchUp = async () => {
    const r = await poll(events, shared);
    shared = r.cursor;
    return r.cursor;
  };

  beforeAll(async () => {
    running = await startSandbox({ now: () => NOW, eventOrder: order, eventCount: 2000, rateLimits: false });
    events = createConsoleClient({ baseUrl: running.url, apiKey: 'sandbox-key', maxRetries: 0 }).events;
  });
  afterAll(async () => {
    await running.close();
  });

  it('reads the whole history once on a first run and detects the order', async () => {
    const before = log().length;
    const first = await poll(events, undefined);
    expect(first.end.caughtUp).toBe(true);
    expect(first.stats.order).toBe(order);
    expect(first.ids).toEqual(expectedIds(all(), order));
    expect(log().length - before).toBeLessThanOrEqual(Math.ceil(2000 / 100) + 1);
    expect(first.cursor?.order).toBe(order);
    shared = first.cursor;
  });

  it('costs at most ceil(k / limit) + 3 requests for k new events and reads each exactly once', async () => {
    let cursor = await catchUp();
    for (const k of [0, 1, 99, 100, 101, 250, 1000]) {
      const known = new Set(expectedIds(all(), order));
      add(k);
      const before = log().length;
      const run = await poll(events, cursor);
      const requests = log().length - before;
      expect(run.end.caughtUp).toBe(true);
      // + 3: the last request is the end-of-run shift check (src/sweeper/shift-check.ts), made
      // once a run reads past its first page.
      expect(requests, `k=${k}`).toBeLessThanOrEqual(Math.ceil(k / 100) + 3);
      const fresh = expectedIds(all(), order).filter((id) => !known.has(id));
      expect(run.ids, `k=${k}`).toEqual(fresh);
      cursor = run.cursor;
    }
  });

  it('reads each new event once when the page size changed since the last run', async () => {
    let cursor = await catchUp();
    for (const pageSize of [1000, 10, 100]) {
      const known = new Set(expectedIds(all(), order));
      add(120);
      const run = await poll(events, cursor, { pageSize });
      expect(run.end.caughtUp).toBe(true);
      expect(run.ids, `pageSize=${pageSize}`).toEqual(
        expectedIds(all(), order).filter((id) => !known.has(id)),
      );
      cursor = run.cursor;
    }
    shared = cursor;
  });

  it('neither loses nor doubles equal timestamps (and exact duplicates) across a page boundary', async () => {
    let cursor = await catchUp();
    const known = new Set(expectedIds(all(), order));
    const t = ++ts;
    add(22, t); // 22 distinct events in one millisecond
    add(3, t, { value: 'dup', userID: 'same', metadata: { same: true } }); // 3 identical events
    const collected: string[] = [];
    let stoppedInside = 0;
    // Few pages per run: runs stop at a page boundary inside the millisecond. (Three, not two:
    // each run re-reads up to one page of its lookback window for late events.)
    for (let run = 0; run < 20; run++) {
      const r = await poll(events, cursor, { pageSize: 10, maxPages: 3 });
      collected.push(...r.ids);
      cursor = r.cursor;
      if (!r.end.caughtUp && r.cursor?.boundaryTs === t) stoppedInside++;
      if (r.end.caughtUp) break;
    }
    expect(stoppedInside).toBeGreaterThan(0);
    // More events in the same millisecond after the cursor reached it.
    add(2, t, { value: 'dup', userID: 'same', metadata: { same: true } });
    add(1, t, { value: 'late' });
    const r = await poll(events, cursor, { pageSize: 10 });
    collected.push(...r.ids);
    const fresh = expectedIds(all(), order).filter((id) => !known.has(id));
    expect(new Set(collected).size).toBe(collected.length);
    expect([...collected].sort()).toEqual([...fresh].sort());
    expect(fresh).toHaveLength(28);
    expect(collected.filter((id) => id.endsWith('.4'))).toHaveLength(1); // the fifth identical event
  });

  it('picks up events that arrive while it reads, without doubling any', async () => {
    let cursor = await catchUp();
    const known = new Set(expectedIds(all(), order));
    add(450);
    let pagesSeen = 0;
    const first = await poll(events, cursor, {
      onPage: () => {
        pagesSeen++;
        if (pagesSeen <= 3) add(40); // arrivals shift newest-first pages under the reader
      },
    });
    cursor = first.cursor;
    const second = await poll(events, cursor);
    const collected = [...first.ids, ...second.ids];
    const fresh = expectedIds(all(), order).filter((id) => !known.has(id));
    expect(new Set(collected).size).toBe(collected.length);
    expect([...collected].sort()).toEqual([...fresh].sort());
  });

  it('detects a changed order on the next run and still reads each event once', async () => {
    const cursor = await catchUp();
    const other: EventOrder = order === 'newest-first' ? 'oldest-first' : 'newest-first';
    running.sandbox.setEventOrder(other);
    const known = new Set(expectedIds(all(), other));
    add(150);
    const run = await poll(events, cursor);
    expect(run.stats.order).toBe(other);
    expect(run.ids).toEqual(expectedIds(all(), other).filter((id) => !known.has(id)));
    running.sandbox.setEventOrder(order);
  });

  it('fails loudly when the policy names an order the API does not serve', async () => {
    const other: EventOrder = order === 'newest-first' ? 'oldest-first' : 'newest-first';
    await expect(poll(events, undefined, { order: other })).rejects.toBeInstanceOf(EventOrderError);
  });
});

/** An in-memory GET /events for what the sandbox cannot do: drop old events, refuse a limit. */
function memoryLog(order: EventOrder, maxLimit = 1000) {
  const log: EventLike[] = [];
  let requests = 0;
  const source: EventsSource = {
    async list({ page, limit }) {
      requests++;
      if (limit > maxLimit) throw Object.assign(new Error('limit too large'), { status: 400 });
      const view = order === 'oldest-first' ? log : [...log].reverse();
      return {
        data: view.slice((page - 1) * limit, page * limit),
        pagination: { itemsPerPage: limit, pageNumber: page, totalItems: view.length },
      };
    },
  };
  let t = NOW - 10_000_000;
  const add = (n: number) => {
    for (let i = 0; i < n; i++) {
      t += 1000;
      log.push({ timestamp: String(t), name: 'e', value: String(t) });
    }
  };
  return { log, source, add, requests: () => requests };
}

describe.each(['newest-first', 'oldest-first'] as const)(
  'the event poller on a log that loses old events, %s',
  (order) => {
    it('finds its place again after retention dropped the oldest events, reading each new event once', async () => {
      const memory = memoryLog(order);
      memory.add(5000);
      const first = await poll(memory.source, undefined);
      expect(first.ids).toHaveLength(5000);
      memory.log.splice(0, 3000); // retention: positions shift down by 3000
      memory.add(50);
      const before = memory.requests();
      const next = await poll(memory.source, first.cursor);
      expect(next.ids).toEqual(expectedIds(memory.log, 'oldest-first').slice(-50));
      expect(memory.requests() - before, JSON.stringify(next.stats)).toBeLessThanOrEqual(8); // galloping back, not a rescan
    });

    it('asks for a smaller page when the API refuses the limit', async () => {
      const memory = memoryLog(order, 100);
      memory.add(450);
      const run = await poll(memory.source, undefined, { pageSize: 1000 });
      expect(run.end.caughtUp).toBe(true);
      expect(run.ids).toEqual(expectedIds(memory.log, 'oldest-first'));
      expect(run.cursor?.pageSize).toBe(100);
    });
  },
);

describe('the event poller on a page shorter than the page size it reports', () => {
  it('reads past it instead of asking for the same page until the deadline', async () => {
    const memory = memoryLog('oldest-first');
    memory.add(250);
    const short: EventsSource = {
      async list(params, options) {
        if (memory.requests() >= 50) throw new Error('too many requests');
        const page = await memory.source.list(params, options);
        // Page 2 holds 99 events while itemsPerPage says 100 and totalItems stays 250.
        return params.page === 2 ? { ...page, data: page.data.slice(0, -1) } : page;
      },
    };
    const run = await poll(short, undefined, { pageSize: 100 });
    expect({ n: run.ids.length, end: run.end, requests: memory.requests() }).toEqual({
      n: 249,
      end: { caughtUp: true, stop: 'caught-up' },
      requests: 4, // three pages, and the end-of-run shift check (src/sweeper/shift-check.ts)
    });
  });
});

/** A log served as the platform serves it (what `log()` holds at each call); `glitch` serves a page empty. */
function servedLog(log: () => EventLike[], glitch?: { page: number; times: number }): EventsSource {
  return {
    async list({ page, limit }) {
      const all = log();
      const empty = glitch && glitch.page === page && glitch.times-- > 0;
      const data = empty ? [] : all.slice((page - 1) * limit, page * limit);
      return { data, pagination: { itemsPerPage: limit, pageNumber: page, totalItems: all.length } };
    },
  };
}

/** One run at NOW, oldest first, on the injected clock; a failed read ends it with its error. */
async function runAtNow(events: EventsSource, cursor: Cursor | undefined, pageSize = 100) {
  const poller = createPoller({
    events,
    pageSize,
    order: 'oldest-first',
    cursor,
    deadline: Number.MAX_SAFE_INTEGER,
    now: NOW,
    clock: () => NOW,
    logger,
  });
  const ids: string[] = [];
  const names: string[] = [];
  let last = cursor;
  const pages = poller.pages();
  for (;;) {
    const step = await pages.next().catch((error: Error) => ({ done: true as const, value: error }));
    if (step.done) return { ids, names, cursor: last, end: step.value };
    ids.push(...step.value.newEvents.map((e) => e.id));
    names.push(...step.value.newEvents.map((e) => e.event.name));
    last = step.value.cursor;
  }
}

describe('the event poller, bounded and never skipping on a glitch', () => {
  it('keeps the cursor item far below DynamoDB’s 400 KB on a busy log read in large pages', async () => {
    // 10,000 events within the 15-minute lookback, read in pages of 10,000.
    const log: EventLike[] = Array.from({ length: 10_000 }, (_, i) => ({
      timestamp: String(NOW - 14 * 60_000 + i * 80),
      name: 'config_exposure',
      metadata: { config: `c${i % 50}` },
      userID: `u${i}`,
    }));
    const { cursor, ids } = await runAtNow(
      servedLog(() => log),
      undefined,
      10_000,
    );
    expect(ids).toHaveLength(10_000);
    expect(Buffer.byteLength(JSON.stringify(cursor), 'utf8')).toBeLessThan(100 * 1024);
  });

  it('fails a run whose first page comes back empty, and the next run hands out every event', async () => {
    const log: EventLike[] = Array.from({ length: 250 }, (_, i) => ({
      timestamp: String(NOW - 3 * 3_600_000 + i * 60_000),
      name: 'e',
      value: String(i),
    }));
    const events = servedLog(() => log, { page: 1, times: 1 });
    const first = await runAtNow(events, undefined);
    expect(first.end).toBeInstanceOf(Error);
    const second = await runAtNow(events, first.cursor);
    expect(first.ids.length + second.ids.length).toBe(250);
  });
});

describe('an event whose timestamp does not parse', () => {
  const minutes = (n: number) => String(NOW - n * 60_000);

  it('is handed out once, and never makes the events re-read after it look out of order', async () => {
    const log: EventLike[] = [
      { timestamp: minutes(10), name: 'a' },
      { timestamp: 'not-a-time', name: 'odd' },
      { timestamp: minutes(5), name: 'b' },
      { timestamp: minutes(1), name: 'c' },
    ];
    const events = servedLog(() => log);
    const first = await runAtNow(events, undefined);
    expect(first.names).toEqual(['a', 'odd', 'b', 'c']);
    const second = await runAtNow(events, first.cursor); // re-reads the 15-minute lookback
    expect(second).toMatchObject({ names: [], end: { caughtUp: true } });
    const third = await runAtNow(events, second.cursor);
    expect(third).toMatchObject({ names: [], end: { caughtUp: true } });
  });

  it('is handed out when logged late behind an event older than the window, and never stops a run', async () => {
    let log: EventLike[] = [
      { timestamp: minutes(60), name: 'a' },
      { timestamp: minutes(1), name: 'b' },
    ];
    const events = servedLog(() => log);
    const first = await runAtNow(events, undefined);
    expect(first.names).toEqual(['a', 'b']);
    // Logged late between them, with an ISO date where epoch milliseconds belong.
    log = [
      log[0] as EventLike,
      { timestamp: new Date(NOW - 10 * 60_000).toISOString(), name: 'late' },
      log[1] as EventLike,
    ];
    const second = await runAtNow(events, first.cursor);
    expect(second).toMatchObject({ names: ['late'], end: { caughtUp: true } });
    // The log's oldest event with such a timestamp, and an event older than the window after it.
    log = [{ timestamp: 'not-a-time', name: 'odd' }, ...log];
    const third = await runAtNow(events, second.cursor);
    expect(third.end).toMatchObject({ caughtUp: true });
    expect((await runAtNow(events, third.cursor)).end).toMatchObject({ caughtUp: true });
  });
});
