/**
 * The last-seen index: config id → the newest exposure observed (epoch ms), one item per
 * config under `pk = lastseen`. Writes keep the maximum, so the order events arrive in does
 * not matter. BatchWriteItem cannot compare, so the run reads the index once, merges
 * the maximum in memory and batch-writes only the entries that grew; the run lease (sweep-lease.ts)
 * makes the sweeper the single writer, which is what makes read-merge-write safe. (The
 * alternative, one conditional UpdateItem per config, costs a request per config per flush.)
 *
 * Bounded: client SDKs write the config ids (an integration that logs a user or request id there
 * adds thousands a day), and every run reads the whole index into memory. It keeps at most
 * `LAST_SEEN_MAX_IDS` ids, evicting those seen longest ago, and remembers the newest last-seen
 * time it ever evicted (`evictedUpTo`, an item of its own). An id absent from the index counts as
 * seen then, never earlier: eviction can only make a config look more recently used, so it can
 * delay an archive but never bring one forward (a config added to `configs` later keeps its history).
 */

import { type Item, itemKey } from './dynamo.js';
import { batchDelete, batchPut } from './dynamo-batch.js';
import { queryPages, queryPartition } from './dynamo-query.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const PK = ITEM_FAMILIES.lastSeen;

/**
 * At most this many config ids are kept. Each costs about 0.7 KB of the sweeper's memory while it
 * loads (measured: 200,000 ids took 136 MB and 6.5 s per run): 10,000 are some 7 MB and one or two
 * Query pages, well inside the 384 MB the sweeper has beside a first run over 100,000 events
 * (177 MB), and far more configs than a project has.
 */
export const LAST_SEEN_MAX_IDS = 10_000;

/**
 * The `sk` of the eviction watermark. No id an exposure names can have it (ids have no spaces);
 * one a policy lists would only read the watermark as its last exposure, which is conservative.
 */
const EVICTED_SK = '#evicted up to';

export interface LastSeenIndex {
  /** Config id → newest exposure (epoch ms); at most `max` of them between flushes. */
  entries: Map<string, number>;
  /** The newest last-seen time evicted (null: none ever was); every absent id counts as seen then. */
  evictedUpTo: number | null;
  /** Ids evicted by this run. */
  evicted: number;
  max: number;
  /**
   * False when its load stopped at the run's deadline while cutting the index down: the entries
   * are part of the index only, and an id not read yet would count as seen at the watermark, so
   * nothing may be recorded, forgotten or judged from them. What was evicted stays evicted.
   */
  complete: boolean;
}

/** When cutting the index down must stop: the run's deadline on its clock. */
export interface EvictionDeadline {
  deadline: number;
  clock: () => number;
}

/** A config's last exposure as the index tells it: its entry, never earlier than the watermark. */
export function lastSeenOf(
  entries: ReadonlyMap<string, number>,
  evictedUpTo: number | null | undefined,
  configId: string,
): number | null {
  const at = entries.get(configId);
  if (evictedUpTo == null) return at ?? null;
  return at === undefined ? evictedUpTo : Math.max(at, evictedUpTo);
}

/** The entries alone (tests, tools): what the index holds, without the watermark. */
export async function loadLastSeen(table: StateTable): Promise<Map<string, number>> {
  const index = new Map<string, number>();
  for (const item of await queryPartition(table, PK)) {
    const id = item.sk?.S;
    const at = Number(item.lastSeen?.N);
    if (id && id !== EVICTED_SK && Number.isFinite(at)) index.set(id, at);
  }
  return index;
}

/**
 * The index for a run, page by page, evicting past `max` as it goes: an index grown large
 * before it was bounded is cut down on the first run without ever being held whole. That cut
 * (one BatchWriteItem per 25 ids: thousands for an old index) stops at `until`, leaving the index
 * incomplete (`complete: false`); the next runs go on from there, the watermark durable already.
 */
export async function loadLastSeenIndex(
  table: StateTable,
  now: Date,
  max = LAST_SEEN_MAX_IDS,
  until?: EvictionDeadline,
): Promise<LastSeenIndex> {
  // Read first: an eviction on the first page must not lower the stored watermark.
  const [mark] = await queryPartition(table, PK, { skPrefix: EVICTED_SK, maxPages: 1 });
  const index: LastSeenIndex = {
    entries: new Map(),
    evictedUpTo: lastSeenFromItem(mark, now.getTime()) ?? null,
    evicted: 0,
    max,
    complete: true,
  };
  for await (const page of queryPages(table, PK)) {
    for (const item of page) {
      const id = item.sk?.S;
      const at = lastSeenFromItem(item, now.getTime());
      if (id && id !== EVICTED_SK && at !== undefined) index.entries.set(id, at);
    }
    if (!(await evictPastBound(table, index, now, until))) {
      index.complete = false;
      break;
    }
  }
  return index;
}

/**
 * Records `observed` (keeping the maximum; an absent id already counts as seen at the watermark),
 * writes the entries that grew, then evicts past the bound. Returns the entries that grew.
 */
export async function recordExposures(
  table: StateTable,
  index: LastSeenIndex,
  observed: Map<string, number>,
  now: Date,
): Promise<Map<string, number>> {
  const grown = new Map<string, number>();
  for (const [id, at] of observed) {
    const known = lastSeenOf(index.entries, index.evictedUpTo, id);
    if (id !== EVICTED_SK && (known === null || at > known)) {
      index.entries.set(id, at);
      grown.set(id, at);
    }
  }
  if (grown.size > 0) await writeLastSeen(table, grown, now);
  await evictPastBound(table, index, now);
  return grown;
}

/**
 * Evicts the ids seen longest ago down to `max`: the watermark is durable before any entry goes.
 * False when `until` came first (checked before each batch of 25): the ids not deleted yet stay
 * in the table and the entries, at or under the watermark, so both still agree.
 */
async function evictPastBound(
  table: StateTable,
  index: LastSeenIndex,
  now: Date,
  until?: EvictionDeadline,
): Promise<boolean> {
  const over = index.entries.size - index.max;
  if (over <= 0) return true;
  const timeUp = () => until !== undefined && until.clock() >= until.deadline;
  if (timeUp()) return false;
  const oldest = [...index.entries].sort(([a, at], [b, bt]) => at - bt || (a < b ? -1 : 1)).slice(0, over);
  const upTo = Math.max(index.evictedUpTo ?? Number.NEGATIVE_INFINITY, oldest[oldest.length - 1]?.[1] ?? 0);
  if (upTo !== index.evictedUpTo) await writeLastSeen(table, new Map([[EVICTED_SK, upTo]]), now);
  index.evictedUpTo = upTo;
  for (let i = 0; i < oldest.length; i += 25) {
    if (timeUp()) return false;
    const batch = oldest.slice(i, i + 25);
    await batchDelete(
      table,
      batch.map(([id]) => lastSeenItemKey(id)),
    );
    for (const [id] of batch) index.entries.delete(id);
    index.evicted += batch.length;
  }
  return true;
}

/** The key of one config's last-seen item (the worker reads it with a request's state). */
export const lastSeenItemKey = (configId: string) => itemKey(PK, configId);

/** The key of the eviction watermark (the worker reads it with a config's item). */
export const evictedUpToItemKey = () => itemKey(PK, EVICTED_SK);

/**
 * The last exposure an item records (epoch ms), if any, never later than the run that wrote it
 * (`updatedAt`; without one, `notAfter`: the reader's time): it was logged by then. Versions before
 * c552182 recorded an exposure at its stamp, so a device clock years ahead left entries, and the
 * watermark once one was evicted, years ahead; as a maximum they never came down, and their config
 * (with the watermark: every config without an entry) was never judged stale, its archive denied.
 * Read so, the stored value is corrected the next time the entry grows. The sweeper and the
 * worker's re-check read it alike.
 */
export function lastSeenFromItem(
  item: Item | undefined,
  notAfter = Number.POSITIVE_INFINITY,
): number | undefined {
  const at = Number(item?.lastSeen?.N);
  if (!item || !Number.isFinite(at)) return undefined;
  const written = Date.parse(item.updatedAt?.S ?? '');
  // Not the reader's time when written is known: a run whose time is behind the last one's (a late
  // scheduled event) would read entries lower than stored, and evict them under a lower watermark.
  return Math.min(at, Number.isNaN(written) ? notAfter : written);
}

async function writeLastSeen(table: StateTable, entries: Map<string, number>, now: Date): Promise<void> {
  await batchPut(
    table,
    [...entries].map(([id, at]) => ({
      pk: { S: PK },
      sk: { S: id },
      lastSeen: { N: String(at) },
      updatedAt: { S: now.toISOString() },
    })),
  );
}
