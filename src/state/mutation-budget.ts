/**
 * The mutation budget the worker's containers share. The platform's limits are per API key
 * (100 per 10 s and 900 per 15 min) and the event source runs up to `maxConcurrency`
 * containers at once. Splitting the limits per container leaves budget unused whenever the
 * queue hands one container more than its share: a 900-approval drain at maxConcurrency 10
 * waited out the whole 15-min window instead of taking 90 s (bench/REPORT.md, worker). So the
 * containers share one budget through the state table, as numbered tickets:
 *
 * - take: an atomic counter hands out the next number n, and the holder writes ticket n
 *   (`doneBy`: the latest its request can end) before it sends anything;
 * - wait: for each window (max, perMs), ticket n starts once ticket n − max has ended, plus
 *   perMs: the in-process limiter's rule (a token comes back perMs after its response), across
 *   processes. A predecessor still in flight is looked at again until it ends (or its `doneBy`);
 * - release: the holder stamps `doneAt` when its response arrived, or marks the ticket skipped
 *   when it never sent (its deadline came first): its successors then look past it to its own
 *   predecessor, whose use of the slot still counts.
 *
 * - adapt: a 429 means another client spends part of the key. The holder that met it cuts the
 *   key's pace (src/state/mutation-pace.ts) for every container at once; while its allowance A
 *   is below the max, ticket n also waits for ticket n − A. Each container cutting its own pace
 *   instead made ten containers probe ten times as fast, and meet five times as many 429s.
 *
 * A predecessor whose item is missing (its holder stopped between the counter and its write,
 * or the item expired long ago) is voided by the waiter with a conditional put, as skipped;
 * a holder that finds its own number voided takes another. So a crash never stalls the budget
 * and no number is counted twice. Cost per mutation: a counter update, a put, a batch get, an
 * update (and two reads and a write more after a 429).
 */
import { ApiAbortError } from '../console/errors.js';
import {
  type AcquireOptions,
  budgetTimeout,
  type Clock,
  type MutationBudget,
  type Release,
  systemClock,
  type WindowLimit,
} from '../console/rate-limiter.js';
import { getItem, type Item, itemKey, putIfAbsent } from './dynamo.js';
import { batchGet } from './dynamo-batch.js';
import { updateIf, updateItem } from './dynamo-update.js';
import { cutRecently, paceAllowance, paceCut, paceOf, paceRegrowsAt } from './mutation-pace.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const PK = `${ITEM_FAMILIES.budget}#mutations`;
const COUNTER = itemKey(PK, 'counter');
const ticketSk = (n: number) => `ticket#${String(n).padStart(15, '0')}`;
/** Tickets stay an hour past their window (TTL), long after anyone looks at them. */
const KEEP_MS = 60 * 60_000;
/** Numbers taken in a row before giving up: another is taken only when a waiter voided ours. */
const MAX_TAKES = 5;

export interface SharedBudgetOptions {
  limits: readonly WindowLimit[];
  clock?: Clock;
  /** The longest a holder that names no deadline may keep its ticket in flight. Default 15 min (Lambda's longest run). */
  maxHoldMs?: number;
  /** How often a waiter looks again at a predecessor still in flight. Default a 20th of the shortest window, 10–250 ms. */
  pollMs?: number;
}

/** A ticket as its successors see it: ended at `doneAt` (SKIPPED: never sent), or in flight until `doneBy` at the latest. */
interface Ticket {
  doneAt: number | undefined;
  doneBy: number;
}

/** A slot's last use: ended then, still in flight (until `doneBy` at the latest), or free. */
type Use = { endedAt: number } | { inFlightUntil: number } | { free: true };
const FREE: Use = { free: true };
/** `doneAt` of a ticket that never sent: its slot is still its predecessor's. */
const SKIPPED = -1;
/** Skipped tickets followed in one slot before counting the slot as used just now. */
const MAX_CHAIN = 10;

export function createSharedMutationBudget(table: StateTable, options: SharedBudgetOptions): MutationBudget {
  const clock = options.clock ?? systemClock;
  const limits = options.limits.map((limit) => ({ ...limit }));
  if (limits.length === 0 || limits.some((l) => !Number.isInteger(l.max) || l.max < 1 || !(l.perMs > 0))) {
    throw new TypeError(`invalid mutation windows ${JSON.stringify(options.limits)}`);
  }
  const longestMs = Math.max(...limits.map((l) => l.perMs));
  const pace = paceOf(limits);
  const pollMs = options.pollMs ?? Math.max(10, Math.min(250, Math.min(...limits.map((l) => l.perMs)) / 20));
  const maxHoldMs = options.maxHoldMs ?? 15 * 60_000;

  /** TTL (epoch s): an hour past the ticket's window, counted from now at the earliest. */
  const expiresAt = (doneBy: number, doneAt = 0) => ({
    N: String(Math.ceil((Math.max(doneBy, doneAt, clock.now()) + longestMs + KEEP_MS) / 1000)),
  });
  const ticketItem = (n: number, doneBy: number, doneAt?: number): Item => ({
    ...itemKey(PK, ticketSk(n)),
    doneBy: { N: String(doneBy) },
    ...(doneAt === undefined ? {} : { doneAt: { N: String(doneAt) } }),
    expiresAt: expiresAt(doneBy, doneAt),
  });

  /** A number, and the counter item as it was then (it carries the pace's last cut). */
  async function take(doneBy: number): Promise<{ n: number; counter: Item | undefined }> {
    for (let attempt = 0; attempt < MAX_TAKES; attempt++) {
      const out = await updateItem(table, COUNTER, {
        expression: 'ADD n :one',
        values: { ':one': { N: '1' } },
        returnAll: true,
      });
      const n = Number(out.Attributes?.n?.N);
      if (!Number.isSafeInteger(n)) throw new Error('the mutation budget counter returned no number');
      if (await putIfAbsent(table, ticketItem(n, doneBy))) return { n, counter: out.Attributes };
    }
    throw new Error(`could not take a mutation budget ticket in ${MAX_TAKES} tries`);
  }

  /**
   * A 429: the pace drops to 90% of its use (what the key allowed us in the last window), which
   * becomes the ceiling it regains; not when a container cut it less than a window ago. A
   * holder that had to wait found the budget full: the use was the allowance it waited at
   * (`full`). Otherwise few tickets wait, and the use is the tickets among the latest numbers
   * that ended within the window (a waiting ticket has no `doneAt` and does not count).
   * After a 429 only: a read, then a batch get unless `full` is known, and a conditional write.
   */
  async function cut(full: number | undefined): Promise<void> {
    const now = clock.now();
    const counter = await getItem(table, COUNTER);
    const latest = Number(counter?.n?.N);
    if (!Number.isSafeInteger(latest) || cutRecently(counter, pace, now)) return;
    const used = full ?? (await endedWithin(latest, now));
    const { update, condition } = paceCut(counter, pace, used, now);
    await updateIf(table, COUNTER, update, condition);
  }

  /** How many of the latest `pace.max` tickets ended within the pace's window. */
  async function endedWithin(latest: number, now: number): Promise<number> {
    const recent = await batchGet(
      table,
      Array.from({ length: Math.min(pace.max, latest) }, (_, i) => itemKey(PK, ticketSk(latest - i))),
    );
    return recent.map(ticketOf).filter((t) => t.doneAt !== undefined && t.doneAt > now - pace.perMs).length;
  }

  /** The item of ticket `n`; a missing one is voided first (read again when its holder wrote it meanwhile). */
  async function ticket(n: number, item?: Item): Promise<Ticket | 'missing'> {
    if (item) return ticketOf(item);
    if (await putIfAbsent(table, ticketItem(n, 0, SKIPPED))) return 'missing';
    const written = await getItem(table, itemKey(PK, ticketSk(n)));
    return written ? ticketOf(written) : 'missing';
  }

  /**
   * When the slot ticket `n` takes over in one window was last used: a skipped ticket (never
   * sent) hands on its own predecessor's, so the chain n, n − step, n − 2·step ... is followed
   * to the last ticket that was sent. A second missing item in a row means the chain is older
   * than the tickets' lifetime (TTL), so the slot is free; a chain longer than MAX_CHAIN counts
   * as used just now (safe, and never seen but after a storm of refusals).
   */
  async function lastUse(n: number, step: number, first: Item | undefined): Promise<Use> {
    let item = first;
    let missed = false;
    for (let p = n, depth = 0; p >= 1; p -= step, depth++) {
      if (depth > MAX_CHAIN) return { endedAt: clock.now() };
      const found = await ticket(p, item);
      item = undefined;
      if (found === 'missing') {
        if (missed) return FREE;
        missed = true;
        continue;
      }
      missed = false;
      if (found.doneAt === SKIPPED) continue;
      if (found.doneAt !== undefined) return { endedAt: found.doneAt };
      return found.doneBy <= clock.now() ? { endedAt: found.doneBy } : { inFlightUntil: found.doneBy };
    }
    return FREE;
  }

  /** When ticket `n` may start (`at`), and the soonest it could if its predecessors in flight ended now. */
  async function readiness(n: number, allowance: number) {
    // One predecessor per window at its max (the key's limits), and one at the pace's allowance while it is cut.
    const steps = limits.map((limit) => ({ step: limit.max, perMs: limit.perMs }));
    if (allowance < pace.max) steps.push({ step: allowance, perMs: pace.perMs });
    const before = steps.map((w) => ({ ...w, n: n - w.step })).filter((p) => p.n >= 1);
    const found = new Map(
      (
        await batchGet(
          table,
          before.map((p) => itemKey(PK, ticketSk(p.n))),
        )
      ).map((i) => [i.sk?.S, i]),
    );
    let at = Number.NEGATIVE_INFINITY;
    let soonest = Number.NEGATIVE_INFINITY;
    let inFlight = false;
    for (const p of before) {
      const use = await lastUse(p.n, p.step, found.get(ticketSk(p.n)));
      if ('endedAt' in use) {
        at = Math.max(at, use.endedAt + p.perMs);
        soonest = Math.max(soonest, use.endedAt + p.perMs);
      } else if ('inFlightUntil' in use) {
        inFlight = true;
        at = Math.max(at, use.inFlightUntil + p.perMs);
        soonest = Math.max(soonest, clock.now() + p.perMs);
      }
    }
    return { at, soonest, inFlight };
  }

  async function end(n: number, doneAt: number, doneBy: number): Promise<void> {
    await updateItem(table, itemKey(PK, ticketSk(n)), {
      expression: 'SET doneAt = :at, expiresAt = :expires',
      values: {
        ':at': { N: String(doneAt) },
        ':expires': expiresAt(doneBy, doneAt),
      },
    });
  }

  return {
    async acquire({ signal, deadline }: AcquireOptions = {}): Promise<Release> {
      if (signal?.aborted) throw new ApiAbortError('request aborted');
      const doneBy = deadline ?? clock.now() + maxHoldMs;
      const { n, counter } = await take(doneBy);
      // The allowance when this ticket last had to wait: the budget was full at it.
      let fullAt: number | undefined;
      try {
        for (;;) {
          // The allowance grows as windows pass after a cut: a ticket that waits sees it grow.
          const allowance = paceAllowance(counter, pace, clock.now());
          const ready = await readiness(n, allowance);
          const now = clock.now();
          if (ready.at <= now) break;
          fullAt = allowance;
          if (deadline !== undefined && ready.soonest > deadline) throw budgetTimeout();
          const regrowsAt = paceRegrowsAt(counter, pace, now);
          if (!ready.inFlight && ready.at <= regrowsAt) {
            // Every predecessor has ended and the allowance holds until then: the time is final.
            await sleepUntil(clock, ready.at, signal);
            break;
          }
          // Look again when the allowance grows or the predecessor in flight may have ended
          // (its end moves the time), by the deadline at the latest.
          const wakeAt = Math.min(
            ready.at,
            regrowsAt,
            ready.inFlight ? now + pollMs : Infinity,
            deadline === undefined ? Infinity : deadline + 1,
          );
          await sleep(clock, wakeAt - now, signal);
        }
      } catch (error) {
        // Never sent: successors look past it. If even that write fails, `doneBy` bounds their wait.
        await end(n, SKIPPED, doneBy).catch(() => undefined);
        throw error;
      }
      let released = false;
      return async (outcome) => {
        if (released) return;
        released = true;
        // The response is in: a failed stamp must not hide it (successors then wait to `doneBy`).
        await end(n, clock.now(), doneBy).catch(() => undefined);
        // A failed cut costs only more 429s, which the next holder to meet one reports again.
        if (outcome?.rateLimited) await cut(fullAt).catch(() => undefined);
      };
    },
  };
}

function ticketOf(item: Item): Ticket {
  const doneAt = item.doneAt?.N === undefined ? undefined : Number(item.doneAt.N);
  return { doneAt, doneBy: Number(item.doneBy?.N ?? 0) };
}

/**
 * Sleeps until the clock reads `at`. A timer may fire a few ms early against the clock: Node
 * starts it from the event loop's cached time, which lags while the loop is busy. Starting one
 * ms early is starting inside the window the platform counts, so the holder sleeps again.
 */
async function sleepUntil(clock: Clock, at: number, signal: AbortSignal | undefined): Promise<void> {
  for (let left = at - clock.now(); left > 0; left = at - clock.now()) await sleep(clock, left, signal);
}

function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(new ApiAbortError('request aborted while waiting for the shared mutation budget'));
    };
    const timer = clock.setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
