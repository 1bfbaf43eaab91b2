/**
 * The mutation budget the worker's containers share: the platform's limits are per API key, and
 * split per container they leave budget unused whenever the queue hands one container more than
 * its share (a 900-approval drain at maxConcurrency 10 waited out the 15-min window instead of
 * taking 90 s). So the containers share one budget in the state table, as numbered tickets:
 * - take: an atomic counter hands out n; the holder writes ticket n (`doneBy`) before it sends;
 * - wait: per window (max, perMs) ticket n starts perMs after ticket n − max ended (the in-process
 *   limiter's rule across processes); one in flight is looked at again until it ends or `doneBy`;
 * - release: `doneAt` when its response came, or skipped when it never sent: successors then look
 *   past it to its own predecessor;
 * - adapt: a 429 cuts the key's pace for every container (src/state/mutation-pace.ts); while its
 *   allowance A is below the max, ticket n also waits for n − A (per-container cuts probed 10×).
 * A missing predecessor is voided by the waiter (a conditional put, as skipped); a holder finding
 * its number voided takes another: a crash never stalls the budget, no number counts twice.
 * Per mutation: a counter update, a put, a batch get, an update; a counter read per wake.
 */
import {
  type AcquireOptions,
  budgetTimeout,
  type Clock,
  type MutationBudget,
  type Release,
  systemClock,
  type WindowLimit,
} from '../console/rate-limiter.js';
import { sleepUntil, throwIfAborted } from './budget-sleep.js';
import { getItem, type Item, putIfAbsent } from './dynamo.js';
import { batchGet } from './dynamo-batch.js';
import { updateIf, updateItem } from './dynamo-update.js';
import {
  CHAIN_BATCH,
  COUNTER,
  chainFrom,
  expiredBelow,
  FREE,
  MAX_MISSING_IN_A_ROW,
  oldThrough,
  SKIPPED,
  type Ticket,
  takeNumber,
  ticketKey,
  ticketOf,
  ticketSk,
  type Use,
  useOf,
  wasMissing,
} from './mutation-numbers.js';
import { cutRecently, paceAllowance, paceCut, paceOf, paceRegrowsAt } from './mutation-pace.js';
import type { StateTable } from './table.js';

/** Numbers taken in a row before giving up: another is taken only when a waiter voided ours. */
const MAX_TAKES = 5;
/** Time a request sent without a deadline keeps before its `doneBy` (three times the Console client's default timeout). */
const SEND_MARGIN_MS = 30_000;

export interface SharedBudgetOptions {
  limits: readonly WindowLimit[];
  clock?: Clock;
  /**
   * The longest a holder keeps its ticket, waiting and in flight (a deadline further away counts
   * as none); one without a deadline is refused when its turn would leave its request less than
   * a margin of it. Default 15 min (Lambda's longest run).
   */
  maxHoldMs?: number;
  /** How often a waiter looks again at a predecessor still in flight. Default a 20th of the shortest window, 10–250 ms. */
  pollMs?: number;
}

/** What a waiter reads its predecessors by: `old` (free below), its latest start, `expiredBelow`. */
type Reading = { old: number; startBy: number; expired: number };

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
  // A number taken this long ago has ended (doneBy is at most maxHoldMs after the take) and its window passed.
  const staleAfterMs = maxHoldMs + longestMs;
  const sendMarginMs = Math.min(SEND_MARGIN_MS, maxHoldMs / 2);

  /** TTL (epoch s): past the ticket's window for longer than a number above `oldThrough` can be old. */
  const expiresAt = (doneBy: number, doneAt = 0) => ({
    N: String(Math.ceil((Math.max(doneBy, doneAt, clock.now()) + longestMs + 4 * staleAfterMs) / 1000)),
  });
  const ticketItem = (n: number, doneBy: number, doneAt?: number): Item => ({
    ...ticketKey(n),
    doneBy: { N: String(doneBy) },
    ...(doneAt === undefined ? {} : { doneAt: { N: String(doneAt) } }),
    expiresAt: expiresAt(doneBy, doneAt),
  });

  /** A number, and the counter item as it was then (it carries the pace's last cut). */
  async function take(doneBy: number): Promise<{ n: number; counter: Item | undefined }> {
    for (let attempt = 0; attempt < MAX_TAKES; attempt++) {
      const counter = await takeNumber(table, clock.now(), staleAfterMs);
      const n = Number(counter.n?.N);
      if (!Number.isSafeInteger(n)) throw new Error('the mutation budget counter returned no number');
      if (await putIfAbsent(table, ticketItem(n, doneBy))) return { n, counter };
    }
    throw new Error(`could not take a mutation budget ticket in ${MAX_TAKES} tries`);
  }

  /**
   * A 429 met by ticket `n`: the pace drops to 90% of its use in the last window (the ceiling it
   * regains), unless a container cut it less than a window ago. The use is the allowance a holder
   * waited at for the pace's full window (`full`), else the tickets around `n` that ended within
   * the window (the latest numbers would count tickets still waiting, with no `doneAt`: a cut to 1).
   * After a 429 only: a read, then a batch get unless `full` is known, and a conditional write.
   */
  async function cut(n: number, full: number | undefined): Promise<void> {
    const now = clock.now();
    const counter = await getItem(table, COUNTER);
    const latest = Number(counter?.n?.N);
    if (!Number.isSafeInteger(latest) || cutRecently(counter, pace, now)) return;
    const used = full ?? (await endedWithin(n, latest, now));
    const { update, condition } = paceCut(counter, pace, used, now);
    await updateIf(table, COUNTER, update, condition);
  }

  /**
   * How many tickets ended within the pace's window, as ticket `n` ends. None below n − max can
   * have (n started a window after n − max ended), and none from n + max has started (it waits
   * a window after n), so the peers that did are among the 2·max − 1 numbers around n.
   */
  async function endedWithin(n: number, latest: number, now: number): Promise<number> {
    const first = Math.max(1, n - pace.max + 1);
    const last = Math.min(latest, n + pace.max - 1);
    const recent = await batchGet(
      table,
      Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => ticketKey(first + i)),
    );
    return recent.map(ticketOf).filter((t) => t.doneAt !== undefined && t.doneAt > now - pace.perMs).length;
  }

  /** The item of ticket `n`; a missing one is voided first (read again when its holder wrote it meanwhile). */
  async function ticket(n: number, item?: Item): Promise<Ticket | 'missing'> {
    if (item) return ticketOf(item);
    if (await putIfAbsent(table, ticketItem(n, 0, SKIPPED))) return 'missing';
    const written = await getItem(table, ticketKey(n));
    return written ? ticketOf(written) : 'missing';
  }

  /**
   * When the slot ticket `n` takes over was last used: a skipped ticket hands on its predecessor's,
   * so the chain n, n − step, ... is followed in batches to the last one sent (by `startBy`).
   */
  async function lastUse(n: number, step: number, from: Reading, first: Item | undefined) {
    const { old, startBy, expired } = from;
    let missing = 0;
    for (let p = n; p > old; p -= CHAIN_BATCH * step) {
      if (clock.now() > startBy) throw budgetTimeout();
      const chain = chainFrom(p, step, old);
      const items = await readTickets(chain, p === n ? first : undefined);
      for (const q of chain) {
        // So many missing in a row are no holders yet to write (one writes right after its take):
        // they expired, on a counter older than its `oldThrough` says (the previous version's).
        if (missing >= MAX_MISSING_IN_A_ROW && q < expired) return FREE;
        const found = await ticket(q, items.get(ticketSk(q)));
        missing = wasMissing(found) ? missing + 1 : 0;
        const use = useOf(found, clock.now());
        if (use) return use;
      }
    }
    return FREE;
  }

  /** Tickets `ns` at once (`first`, the first one's item, already read): sort key → item. */
  async function readTickets(ns: number[], first: Item | undefined): Promise<Map<string | undefined, Item>> {
    const read = first ? [first] : [];
    if (ns.length > read.length) read.push(...(await batchGet(table, ns.slice(read.length).map(ticketKey))));
    return new Map(read.map((item) => [item.sk?.S, item]));
  }

  /**
   * When ticket `n` may start (`at`), the soonest it could if its predecessors in flight ended
   * now, and whether the pace's window set `at` (then that window is full at the allowance).
   */
  async function readiness(n: number, allowance: number, from: Reading) {
    const { old } = from;
    // One predecessor per window at its max (the key's limits), and one at the pace's allowance while it is cut.
    const steps = limits.map((limit) => ({ step: limit.max, perMs: limit.perMs }));
    if (allowance < pace.max) steps.push({ step: allowance, perMs: pace.perMs });
    const before = steps.map((w) => ({ ...w, n: n - w.step })).filter((p) => p.n > old);
    // Two windows with one max name one ticket: DynamoDB refuses a batch with a key twice.
    const keys = [...new Set(before.map((p) => p.n))].map(ticketKey);
    const found = new Map((await batchGet(table, keys)).map((i) => [i.sk?.S, i]));
    let at = Number.NEGATIVE_INFINITY;
    let paceAt = Number.NEGATIVE_INFINITY;
    let soonest = Number.NEGATIVE_INFINITY;
    let inFlight = false;
    for (const p of before) {
      const use: Use = await lastUse(p.n, p.step, from, found.get(ticketSk(p.n)));
      if ('free' in use) continue;
      const startAt = ('endedAt' in use ? use.endedAt : use.inFlightUntil) + p.perMs;
      at = Math.max(at, startAt);
      if (p.perMs === pace.perMs) paceAt = Math.max(paceAt, startAt);
      if ('inFlightUntil' in use) inFlight = true;
      soonest = Math.max(soonest, 'endedAt' in use ? startAt : clock.now() + p.perMs);
    }
    return { at, soonest, inFlight, byPace: paceAt >= at };
  }

  async function end(n: number, doneAt: number, doneBy: number): Promise<void> {
    await updateItem(table, ticketKey(n), {
      expression: 'SET doneAt = :at, expiresAt = :expires',
      values: {
        ':at': { N: String(doneAt) },
        ':expires': expiresAt(doneBy, doneAt),
      },
    });
  }

  /** Final: every predecessor ended, the allowance holds till its turn; else look again sooner. */
  function nextLook(
    ready: { at: number; inFlight: boolean },
    counter: Item | undefined,
    now: number,
    startBy: number,
  ) {
    const regrowsAt = paceRegrowsAt(counter, pace, now);
    const final = !ready.inFlight && ready.at <= regrowsAt;
    const poll = ready.inFlight ? now + pollMs : Infinity;
    return { final, wakeAt: final ? ready.at : Math.min(ready.at, regrowsAt, poll, startBy + 1) };
  }

  /** In time, and the pace's allowance has not shrunk since the ticket waited at it. */
  const grantable = (counter: Item | undefined, allowance: number, startBy: number) =>
    clock.now() <= startBy && paceAllowance(counter, pace, clock.now()) >= allowance;

  /**
   * Waits until ticket `n` may start; the allowance it last waited at for the pace's window (that
   * window was full at it), undefined when it never did.
   */
  async function waitForTurn(n: number, taken: Item | undefined, startBy: number, signal?: AbortSignal) {
    let counter = taken;
    let fullAt: number | undefined;
    for (;;) {
      throwIfAborted(signal);
      // The allowance grows as windows pass after a cut: a ticket that waits sees it grow.
      const allowance = paceAllowance(counter, pace, clock.now());
      const ready = await readiness(n, allowance, {
        old: oldThrough(counter),
        startBy,
        expired: expiredBelow(counter),
      });
      const now = clock.now();
      // Never granted after its deadline, even when its turn came while it slept past it.
      if (now > startBy) throw budgetTimeout();
      if (ready.at <= now) return fullAt;
      fullAt = ready.byPace ? allowance : undefined;
      if (ready.soonest > startBy) throw budgetTimeout();
      const { final, wakeAt } = nextLook(ready, counter, now, startBy);
      await sleepUntil(clock, wakeAt, signal);
      // A cut another container made since this ticket read the counter slows it as well.
      counter = (await getItem(table, COUNTER)) ?? counter;
      if (final && grantable(counter, allowance, startBy)) return fullAt;
    }
  }

  return {
    async acquire({ signal, deadline }: AcquireOptions = {}): Promise<Release> {
      throwIfAborted(signal);
      const heldUntil = clock.now() + maxHoldMs;
      const bounded = deadline !== undefined && deadline <= heldUntil;
      const doneBy = bounded ? deadline : heldUntil;
      // Successors count the ticket as ended at `doneBy`, so its request must be over by then: a
      // deadline cuts the client's timeout to it; a request sent without one needs time of its own.
      const startBy = bounded ? deadline : Math.min(deadline ?? Infinity, doneBy - sendMarginMs);
      const { n, counter } = await take(doneBy);
      let fullAt: number | undefined;
      try {
        fullAt = await waitForTurn(n, counter, startBy, signal);
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
        // A request that never left (refused connection, deadline) is skipped: nothing was counted.
        await end(n, outcome?.sent === false ? SKIPPED : clock.now(), doneBy).catch(() => undefined);
        // A failed cut costs only more 429s, which the next holder to meet one reports again.
        if (outcome?.rateLimited) await cut(n, fullAt).catch(() => undefined);
      };
    },
  };
}
