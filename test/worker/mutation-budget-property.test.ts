/**
 * Property test of the shared mutation budget (src/state/mutation-budget.ts): 2–4 containers on
 * one table, a manual clock stepped timer by timer (the emulator answers in real time; the clock
 * only moves when every pending acquire is asleep or done), random acquires / releases / aborts /
 * clock advances, optionally on a counter the previous version kept (`n` alone).
 *
 * Checked after every step:
 * - window: for every window (max, perMs) and every span [t, t + perMs), the holders whose request
 *   could arrive in it (granted at g, request over by min(release, doneBy); released as not sent:
 *   never arrived; previous-version tickets: at their doneAt / in flight till doneBy) ≤ max;
 * - deadline: nobody granted after its deadline (nor at/after its doneBy); a pending acquire is
 *   settled (granted or refused) once the clock passed its deadline;
 * - idle: an acquire made when nothing counted within the longest window and nobody waits is
 *   granted without the clock moving;
 * - liveness: at the end everything is released, the clock passes a long window, and an acquire
 *   with a short deadline is granted.
 *
 * Counterexample it found (plain test at the end): two windows with the same max made readiness()
 * ask BatchGetItem for one key twice; DynamoDB refused, and every ticket past the first `max`
 * failed. Fixed; the generator now includes equal maxima. Fixed seeds keep the suite repeatable.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiAbortError, ApiTimeoutError, type Clock, type Release } from '../../src/console/index.js';
import { getItem, putItem } from '../../src/state/dynamo.js';
import { createSharedMutationBudget } from '../../src/state/mutation-budget.js';
import { COUNTER, ticketKey } from '../../src/state/mutation-numbers.js';
import type { StateTable } from '../../src/state/table.js';
import { budgetTables } from './budget-tables.js';

const tables = budgetTables('review-prop-budget');
let tableCount = 0;

interface StepClock extends Clock {
  timers: Map<number, { at: number; callback: () => void }>;
  set(now: number): void;
}

function stepClock(start = 1_000_000): StepClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  return {
    timers,
    now: () => now,
    set: (t) => {
      now = t;
    },
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
  };
}

type Limit = { max: number; perMs: number };

type Action =
  | { kind: 'acquire'; c: number; deadline: number | null; abortable: boolean }
  | { kind: 'burst'; each: { c: number; deadline: number | null; abortable: boolean }[] }
  | { kind: 'release'; pick: number; sent: boolean; rateLimited: boolean }
  | { kind: 'abort'; pick: number }
  | { kind: 'advance'; ms: number };

type LegacyTicket = { kind: 'absent' } | { kind: 'ended'; ago: number } | { kind: 'inFlight'; left: number };

interface Scenario {
  containers: number;
  limits: Limit[];
  maxHoldMs: number | undefined;
  pollMs: number;
  legacy: { n: number; tickets: LegacyTicket[] } | undefined;
  actions: Action[];
}

interface Holder {
  id: number;
  c: number;
  acquiredAt: number;
  deadline: number | undefined;
  doneBy: number;
  state: 'pending' | 'granted' | 'refused' | 'aborted' | 'error' | 'legacy';
  error?: unknown;
  grantAt?: number;
  release?: Release;
  releaseAt?: number;
  sent?: boolean;
  controller?: AbortController;
}

const SEND_MARGIN_MS = 30_000;
const DEFAULT_HOLD = 15 * 60_000;

async function runScenario(s: Scenario): Promise<{ log: string[]; failure?: string }> {
  const table: StateTable = await tables.fresh(`t${++tableCount}`);
  // The emulator makes a new table ACTIVE on a timer of its own.
  for (let i = 0; i < 100; i++) {
    try {
      await getItem(table, COUNTER);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const clock = stepClock();
  const t0 = clock.now();
  const log: string[] = [];
  const rel = (t: number) => t - t0;
  const holders: Holder[] = [];
  const maxHold = s.maxHoldMs ?? DEFAULT_HOLD;
  const longest = Math.max(...s.limits.map((l) => l.perMs));

  if (s.legacy) {
    await putItem(table, { ...COUNTER, n: { N: String(s.legacy.n) } });
    s.legacy.tickets.forEach((t, i) => {
      // The latest numbers the previous version took: n, n − 1, ...
      const n = s.legacy ? s.legacy.n - i : 0;
      if (n < 1) return;
      if (t.kind === 'ended') {
        const at = t0 - t.ago;
        holders.push({
          id: -n,
          c: -1,
          acquiredAt: at,
          deadline: undefined,
          doneBy: at,
          state: 'legacy',
          grantAt: at,
          releaseAt: at,
          sent: true,
        });
      } else if (t.kind === 'inFlight') {
        holders.push({
          id: -n,
          c: -1,
          acquiredAt: t0,
          deadline: undefined,
          doneBy: t0 + t.left,
          state: 'legacy',
          grantAt: t0,
        });
      }
    });
    for (const h of holders) {
      const n = -h.id;
      await putItem(table, {
        ...ticketKey(n),
        doneBy: { N: String(h.doneBy) },
        ...(h.releaseAt === undefined ? {} : { doneAt: { N: String(h.releaseAt) } }),
      });
    }
    log.push(
      `legacy counter n=${s.legacy.n}, tickets ${JSON.stringify(holders.map((h) => ({ n: -h.id, doneBy: rel(h.doneBy), doneAt: h.releaseAt === undefined ? undefined : rel(h.releaseAt) })))}`,
    );
  }

  const budgets = Array.from({ length: s.containers }, () =>
    createSharedMutationBudget(table, {
      limits: s.limits,
      clock,
      pollMs: s.pollMs,
      ...(s.maxHoldMs === undefined ? {} : { maxHoldMs: s.maxHoldMs }),
    }),
  );

  const pending = () => holders.filter((h) => h.state === 'pending');
  /** Lets the emulator answer until every pending acquire is asleep on the clock or done. */
  async function settle(): Promise<string | undefined> {
    for (let i = 0; i < 5_000; i++) {
      await new Promise((r) => setImmediate(r));
      if (clock.timers.size >= pending().length) {
        // Make sure it is stable (a just-settled promise's handlers have run).
        await new Promise((r) => setTimeout(r, 1));
        if (clock.timers.size >= pending().length) return undefined;
      } else {
        await new Promise((r) => setTimeout(r, 1));
      }
    }
    return `not settled: ${pending().length} pending, ${clock.timers.size} timers`;
  }

  let wakes = 0;
  async function advanceTo(target: number): Promise<string | undefined> {
    for (let guard = 0; guard < 10_000; guard++) {
      const stuck = await settle();
      if (stuck) return stuck;
      const due = [...clock.timers.entries()]
        .filter(([, t]) => t.at <= target)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      // Every timer due at that instant fires together: those waiters race in the table.
      const at = due[1].at;
      const together = [...clock.timers.entries()].filter(([, t]) => t.at === at);
      clock.set(Math.max(clock.now(), at));
      for (const [id] of together) clock.timers.delete(id);
      wakes += together.length;
      for (const [, t] of together) t.callback();
      const check = checkDeadlines();
      if (check) return check;
    }
    clock.set(target);
    return settle();
  }

  function checkDeadlines(): string | undefined {
    for (const h of holders) {
      if (h.state === 'pending' && h.deadline !== undefined && clock.now() > h.deadline + 1) {
        // it may wake at startBy + 1; only after that wake (settled) must it be done
      }
      if (h.grantAt !== undefined && h.state !== 'legacy') {
        if (h.deadline !== undefined && h.grantAt > h.deadline)
          return `holder #${h.id} granted at ${rel(h.grantAt)} after its deadline ${rel(h.deadline)}`;
        if (h.deadline === undefined && h.grantAt > h.doneBy - Math.min(SEND_MARGIN_MS, maxHold / 2))
          return `holder #${h.id} (no deadline) granted at ${rel(h.grantAt)}, later than a margin before its doneBy ${rel(h.doneBy)}`;
        if (h.grantAt > h.doneBy)
          return `holder #${h.id} granted at ${rel(h.grantAt)} after its doneBy ${rel(h.doneBy)}`;
      }
    }
    return undefined;
  }

  function checkSettledPastDeadline(): string | undefined {
    for (const h of holders) {
      if (h.state !== 'pending') continue;
      const startBy =
        h.deadline !== undefined && h.deadline <= h.acquiredAt + maxHold
          ? h.deadline
          : Math.min(
              h.deadline ?? Number.POSITIVE_INFINITY,
              h.acquiredAt + maxHold - Math.min(SEND_MARGIN_MS, maxHold / 2),
            );
      if (clock.now() > startBy + 1)
        return `holder #${h.id} still pending at ${rel(clock.now())}, past its deadline/startBy ${rel(startBy)}`;
    }
    return undefined;
  }

  /** Arrival-based: holder i counts for spans starting in [g − perMs + 1, e]. */
  function checkWindows(): string | undefined {
    const intervals = holders
      .filter((h) => h.grantAt !== undefined && h.sent !== false)
      .map((h) => ({
        h,
        g: h.grantAt as number,
        e: Math.min(h.releaseAt ?? Number.POSITIVE_INFINITY, h.doneBy),
      }));
    for (const limit of s.limits) {
      for (const j of intervals) {
        const t = j.g - limit.perMs + 1;
        const inSpan = intervals.filter((i) => i.g - limit.perMs + 1 <= t && t <= i.e);
        if (inSpan.length > limit.max) {
          return `window ${limit.max}/${limit.perMs}ms: ${inSpan.length} holders could arrive within [${rel(t)}, ${rel(t + limit.perMs)}): ${inSpan
            .map((i) => `#${i.h.id}(c${i.h.c}) granted ${rel(i.g)} over ${rel(i.e)}`)
            .join(', ')}`;
        }
      }
    }
    return undefined;
  }

  function isIdle(): boolean {
    if (pending().length > 0) return false;
    return holders.every((h) => {
      if (h.grantAt === undefined || h.sent === false) return true;
      // What the table says: doneAt when released (even past doneBy), else doneBy.
      const e = h.releaseAt ?? h.doneBy;
      return e <= clock.now() - longest;
    });
  }

  let nextId = 1;
  function acquire(c: number, deadline: number | undefined, abortable: boolean): Holder {
    const controller = abortable ? new AbortController() : undefined;
    const now = clock.now();
    const bounded = deadline !== undefined && deadline <= now + maxHold;
    const h: Holder = {
      id: nextId++,
      c,
      acquiredAt: now,
      deadline,
      doneBy: bounded ? (deadline as number) : now + maxHold,
      state: 'pending',
      ...(controller ? { controller } : {}),
    };
    holders.push(h);
    const budget = budgets[c] as (typeof budgets)[number];
    budget.acquire({ deadline, ...(controller ? { signal: controller.signal } : {}) }).then(
      (release) => {
        h.state = 'granted';
        h.grantAt = clock.now();
        h.release = release;
      },
      (error: unknown) => {
        h.state =
          error instanceof ApiTimeoutError ? 'refused' : error instanceof ApiAbortError ? 'aborted' : 'error';
        h.error = error;
      },
    );
    return h;
  }

  const fail = (failure: string) => ({ log, failure });

  for (const a of s.actions) {
    const now = clock.now();
    if (a.kind === 'acquire') {
      const idle = isIdle();
      const h = acquire(a.c, a.deadline === null ? undefined : now + a.deadline, a.abortable);
      log.push(
        `t=${rel(now)} c${a.c} acquire #${h.id} deadline=${a.deadline === null ? '-' : `+${a.deadline}`}${idle ? ' (idle)' : ''}`,
      );
      const stuck = await settle();
      if (stuck) return fail(stuck);
      if (h.state === 'error') return fail(`acquire #${h.id} failed: ${String(h.error)}`);
      if (h.state !== 'pending')
        log.push(`  #${h.id} ${h.state}${h.grantAt !== undefined ? ` at ${rel(h.grantAt)}` : ''}`);
      if (idle && h.state !== 'granted' && !(a.deadline !== null && a.deadline < 0)) {
        return fail(`idle budget did not grant #${h.id} promptly: ${h.state}`);
      }
    } else if (a.kind === 'burst') {
      // Several acquires at once (no settling between them): their takes and puts interleave.
      const idle = isIdle();
      const started = a.each.map((e) =>
        acquire(e.c, e.deadline === null ? undefined : now + e.deadline, e.abortable),
      );
      log.push(
        `t=${rel(now)} burst ${started.map((h, i) => `c${h.c} #${h.id} deadline=${a.each[i]?.deadline ?? '-'}`).join('; ')}${idle ? ' (idle)' : ''}`,
      );
      const stuck = await settle();
      if (stuck) return fail(stuck);
      for (const h of started)
        if (h.state !== 'pending')
          log.push(`  #${h.id} ${h.state}${h.grantAt !== undefined ? ` at ${rel(h.grantAt)}` : ''}`);
      if (idle && started[0]?.state !== 'granted' && started.every((h) => h.state !== 'granted'))
        return fail(`idle budget granted none of the burst promptly`);
    } else if (a.kind === 'release') {
      const held = holders.filter((h) => h.state === 'granted' && h.releaseAt === undefined);
      if (held.length === 0) continue;
      const h = held[a.pick % held.length] as Holder;
      h.releaseAt = now;
      h.sent = a.sent;
      log.push(`t=${rel(now)} c${h.c} release #${h.id} sent=${a.sent} rateLimited=${a.rateLimited}`);
      await h.release?.({ sent: a.sent, rateLimited: a.rateLimited });
    } else if (a.kind === 'abort') {
      const ps = pending().filter((h) => h.controller);
      if (ps.length === 0) continue;
      const h = ps[a.pick % ps.length] as Holder;
      log.push(`t=${rel(now)} c${h.c} abort #${h.id}`);
      h.controller?.abort();
      const stuck = await settle();
      if (stuck) return fail(stuck);
      if (h.state === 'pending') return fail(`aborted #${h.id} still pending`);
      log.push(`  #${h.id} ${h.state}${h.grantAt !== undefined ? ` at ${rel(h.grantAt)}` : ''}`);
    } else {
      const before = holders.map((h) => h.state);
      wakes = 0;
      const stuck = await advanceTo(now + a.ms);
      log.push(`t=${rel(now)} advance ${a.ms} -> ${rel(clock.now())} (${wakes} wakes)`);
      holders.forEach((h, i) => {
        if (before[i] === 'pending' && h.state !== 'pending')
          log.push(`  #${h.id}(c${h.c}) ${h.state}${h.grantAt !== undefined ? ` at ${rel(h.grantAt)}` : ''}`);
      });
      if (stuck) return fail(stuck);
      const late = checkSettledPastDeadline();
      if (late) return fail(late);
    }
    for (const h of holders)
      if (h.state === 'error') return fail(`acquire #${h.id} failed: ${String(h.error)}`);
    const broken = checkDeadlines() ?? checkWindows();
    if (broken) return fail(broken);
  }

  // Liveness: abort what waits (when it can be), release what is held window by window (also
  // holders granted meanwhile), until nobody waits; then every window passes and one acquire.
  for (const h of pending()) h.controller?.abort();
  wakes = 0;
  const finalFrom = clock.now();
  const releaseAll = async () => {
    for (const h of holders.filter((x) => x.state === 'granted' && x.releaseAt === undefined)) {
      h.releaseAt = clock.now();
      h.sent = true;
      await h.release?.({ sent: true });
    }
  };
  for (let i = 0; i < 60; i++) {
    const stuck = await settle();
    if (stuck) return fail(`final: ${stuck}`);
    await releaseAll();
    if (pending().length === 0) break;
    const late = await advanceTo(clock.now() + longest);
    if (late) return fail(`final: ${late}`);
    const broken = checkDeadlines() ?? checkWindows();
    if (broken) return fail(broken);
  }
  const waiting = pending();
  if (waiting.length > 0)
    return fail(
      `final: still pending ${waiting.map((h) => `#${h.id}`).join(', ')} after 60 windows with every holder released`,
    );
  await releaseAll();
  // Past the last use anyone recorded (previous-version tickets in flight till their doneBy too).
  const lastUse = Math.max(
    clock.now(),
    ...holders.filter((h) => h.grantAt !== undefined && h.sent !== false).map((h) => h.releaseAt ?? h.doneBy),
  );
  const stuck = await advanceTo(lastUse + longest + 1);
  log.push(`t=${rel(finalFrom)} final release/advance -> ${rel(clock.now())} (${wakes} wakes)`);
  if (stuck) return fail(`final: ${stuck}`);
  const broken = checkDeadlines() ?? checkWindows();
  if (broken) return fail(broken);
  const last = acquire(0, clock.now() + 50, false);
  log.push(`t=${rel(clock.now())} final acquire #${last.id} deadline +50`);
  const s2 = await settle();
  if (s2) return fail(`final acquire: ${s2}`);
  if (last.state !== 'granted')
    return fail(`final acquire on an idle budget: ${last.state} ${String(last.error ?? '')}`);
  if (process.env.PROP_TIMING) {
    const count = (st: Holder['state']) => holders.filter((h) => h.state === st).length;
    const waited = holders.filter((h) => h.grantAt !== undefined && h.grantAt > h.acquiredAt).length;
    console.log(
      `stats granted=${count('granted')} waited=${waited} refused=${count('refused')} aborted=${count('aborted')} legacy=${count('legacy')}`,
    );
  }
  return { log };
}

const limitArb: fc.Arbitrary<Limit[]> = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }))
  // The long window's max at or above the short one's (equal maxima: the plain test below).
  .map(([max, long]) => [
    { max, perMs: 1_000 },
    ...(long === undefined ? [] : [{ max: max + long - 1, perMs: 3_000 }]),
  ]);

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('acquire' as const),
      c: fc.integer({ min: 0, max: 3 }),
      deadline: fc.option(fc.integer({ min: 0, max: 3_000 }), { nil: null }),
      abortable: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('burst' as const),
      each: fc.array(
        fc.record({
          c: fc.integer({ min: 0, max: 3 }),
          deadline: fc.option(fc.integer({ min: 0, max: 3_000 }), { nil: null }),
          abortable: fc.boolean(),
        }),
        { minLength: 2, maxLength: 5 },
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      pick: fc.nat(10),
      sent: fc.boolean(),
      rateLimited: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), pick: fc.nat(10) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 100, max: 1_500 }),
        fc.constantFrom(999, 1_000, 1_001, 3_000),
      ),
    }),
  },
);

const legacyTicketArb: fc.Arbitrary<LegacyTicket> = fc.oneof(
  fc.constant({ kind: 'absent' as const }),
  fc.record({ kind: fc.constant('ended' as const), ago: fc.integer({ min: 0, max: 3_500 }) }),
  fc.record({ kind: fc.constant('inFlight' as const), left: fc.integer({ min: 1, max: 2_500 }) }),
);

const scenarioArb = (legacy: boolean): fc.Arbitrary<Scenario> =>
  fc
    .record({
      containers: fc.integer({ min: 2, max: 4 }),
      limits: limitArb,
      maxHoldMs: fc.constantFrom(undefined, 3_000, 3_000, 6_000),
      pollMs: fc.constantFrom(100, 250),
      legacy: legacy
        ? fc.record({
            n: fc.constantFrom(1, 2, 3, 5, 12, 40),
            tickets: fc.array(legacyTicketArb, { maxLength: 12 }),
          })
        : fc.constant(undefined),
      actions: fc.array(actionArb, { minLength: 4, maxLength: Number(process.env.PROP_LEN ?? 22) }),
    })
    .map((s) => ({
      ...s,
      // The previous version followed the same ticket rule (n starts perMs after n − max ended):
      // only its latest `max` numbers (one per slot, for every window) may still count.
      ...(s.legacy
        ? {
            legacy: {
              n: s.legacy.n,
              tickets: s.legacy.tickets.map((t, i) =>
                i >= (s.limits[0]?.max ?? 1) ? { kind: 'absent' as const } : t,
              ),
            },
          }
        : {}),
      actions: s.actions.map((a) =>
        a.kind === 'acquire'
          ? { ...a, c: a.c % s.containers }
          : a.kind === 'burst'
            ? { ...a, each: a.each.map((e) => ({ ...e, c: e.c % s.containers })) }
            : a,
      ),
    }));

function propertyFor(legacy: boolean, numRuns: number, seed?: number) {
  return fc.assert(
    fc.asyncProperty(scenarioArb(legacy), async (scenario) => {
      const started = Date.now();
      const { log, failure } = await runScenario(scenario);
      if (process.env.PROP_TIMING)
        console.log(`run ${Date.now() - started} ms, ${scenario.actions.length} actions`);
      if (process.env.PROP_TIMING && Date.now() - started > 5_000)
        console.log(`SLOW ${JSON.stringify(scenario)}\n${log.join('\n')}`);
      if (failure) throw new Error(`${failure}\nscenario ${JSON.stringify(scenario)}\n${log.join('\n')}`);
    }),
    {
      numRuns,
      ...(seed === undefined ? {} : { seed }),
      endOnFailure: false,
      interruptAfterTimeLimit: 100_000,
    },
  );
}

describe('the shared mutation budget as a property', () => {
  it('keeps every window, deadline and idle grant on a fresh table', async () => {
    // A fixed seed by default: the suite decides the same way on every run (PROP_SEED to explore).
    await propertyFor(false, Number(process.env.PROP_RUNS ?? 30), Number(process.env.PROP_SEED ?? 20261123));
  }, 280_000);

  it('keeps them on a counter the previous version kept (n alone)', async () => {
    await propertyFor(true, Number(process.env.PROP_RUNS ?? 20), Number(process.env.PROP_SEED ?? 20261124));
  }, 280_000);
});

describe('a counterexample the property found', () => {
  // Two windows with the same max (MUTATION_LIMIT_10S = MUTATION_LIMIT_15MIN, both accepted by
  // mutationLimitsFromEnv): readiness() asks BatchGetItem for ticket n − max once per window, the
  // same key twice, which DynamoDB refuses. Ticket 2 on an idle budget is never granted.
  it('grants the next ticket on an idle budget whose two windows share one max', async () => {
    const table = await tables.fresh('equal-max');
    const clock = stepClock();
    const limits = [
      { max: 1, perMs: 1_000 },
      { max: 1, perMs: 3_000 },
    ];
    const a = createSharedMutationBudget(table, { limits, clock });
    const b = createSharedMutationBudget(table, { limits, clock });
    await (await a.acquire())(); // ticket 1: sent, ended at t0
    clock.set(clock.now() + 3_000); // every window has passed: the budget is idle
    const outcome = await b.acquire({ deadline: clock.now() + 50 }).then(
      () => 'granted',
      (error: unknown) => String(error),
    );
    expect(outcome).toBe('granted');
  });
});
