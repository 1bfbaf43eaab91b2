/**
 * The held partition as the release tick reads it every minute. A held item carries its request
 * (up to ~12 KB for a long disable_groups), and a long pause can hold thousands: read whole, the
 * partition would not fit the worker's 256 MB, and read up to a page cap it silently left out the
 * requests whose ids sort last (never released, nor kept through a pause). So the tick pages
 * through a projection of the few small fields that say what is due (`heldEntryPages`), with no
 * page cap, and reads the full records by key (`readHeldRecords`) only for those it acts on.
 * `/autopilot held` reads one page from a cursor instead (`listHeldPage`).
 */
import type { Item } from './dynamo.js';
import { batchGet } from './dynamo-batch.js';
import { queryPages } from './dynamo-query.js';
import { cancelFromItem, type HeldRecord, type HeldWhy, heldFromItem, heldItemKey } from './held.js';
import { HELD_PK } from './held-marks.js';
import type { StateTable } from './table.js';

/** A held request without its body: what the tick decides by (due, stuck, expiring). */
export type HeldEntry = Pick<
  HeldRecord,
  | 'requestId'
  | 'why'
  | 'since'
  | 'nextLook'
  | 'releasedAt'
  | 'releases'
  | 'cancel'
  | 'executingBy'
  | 'reachedAt'
> & {
  /** The record's TTL (epoch seconds), which the tick moves on while paused (held-keep.ts). */
  expiresAt?: number;
};

/**
 * The attributes read: `since` is written only with the request (holdRequest), so an item without
 * it holds only a webhook's marks and is no held request; not `cancelReason` (free text).
 */
const ENTRY_ATTRIBUTES = [
  'requestId',
  'why',
  'since',
  'nextLook',
  'releasedAt',
  'releases',
  'cancelledBy',
  'cancelledAt',
  'executingBy',
  'reachedAt',
  'expiresAt',
] as const;

/** The entry of a held item; undefined for an item that is no held request (marks only: no `since`). */
export function heldEntryFromItem(item: Item): HeldEntry | undefined {
  const requestId = item.requestId?.S;
  const since = item.since?.S;
  if (!requestId || !since) return undefined;
  const entry: HeldEntry = { requestId, since, why: (item.why?.S ?? 'window') as HeldWhy };
  if (item.nextLook?.S) entry.nextLook = item.nextLook.S;
  if (item.releasedAt?.S) entry.releasedAt = item.releasedAt.S;
  if (item.releases?.N) entry.releases = Number(item.releases.N);
  if (item.executingBy?.S) entry.executingBy = item.executingBy.S;
  if (item.reachedAt?.S) entry.reachedAt = item.reachedAt.S;
  if (item.expiresAt?.N) entry.expiresAt = Number(item.expiresAt.N);
  const cancel = cancelFromItem(item);
  if (cancel) entry.cancel = cancel;
  return entry;
}

/**
 * Every held request, one Query page at a time (a page is at most 1 MB of items read, whatever
 * the projection), in request-id order. No page cap: the Query's own guard (10,000 pages, ~10 GB
 * held) throws rather than stop early, so the tick fails loudly (WorkerErrors) instead of leaving
 * requests out. A caller keeps only the entries it acts on.
 */
export async function* heldEntryPages(table: StateTable): AsyncGenerator<HeldEntry[]> {
  for await (const page of queryPages(table, HELD_PK, { attributes: ENTRY_ATTRIBUTES }))
    yield page.map(heldEntryFromItem).filter((entry): entry is HeldEntry => entry !== undefined);
}

/**
 * The full records (with their requests) of `requestIds`, by key: BatchGetItem, 100 keys a call,
 * unprocessed keys asked again (dynamo-batch.ts). In the order asked; one that ended since it was
 * listed (its item gone, or left with marks only) is absent.
 */
export async function readHeldRecords(
  table: StateTable,
  requestIds: readonly string[],
): Promise<HeldRecord[]> {
  const items = await batchGet(table, requestIds.map(heldItemKey));
  const byId = new Map<string, HeldRecord>();
  for (const item of items) {
    const held = heldFromItem(item);
    if (held) byId.set(held.requestId, held);
  }
  return requestIds.flatMap((id) => byId.get(id) ?? []);
}

/** One page of `/autopilot held`: the rows shown, with their requests, and where the next page starts. */
export interface HeldPage {
  rows: HeldRecord[];
  /** The last row's id when more are held after it: the next page is the one after it. */
  next?: string;
}

/**
 * `size` held requests with their requests, in request-id order (the partition's own key order),
 * from the one after `after` (the last id of the page before; it may have ended since).
 *
 * Keyed by the item's key, which a request keeps while held, not by `since`: a request the tick
 * sent back and the worker held again (or a pause held again) moved within a `since` order between
 * two pages, so an offset into it showed one request twice and skipped another. And a page is one
 * Query from the cursor of `size + 1` whole items (the one past the page says whether there is a
 * next), not a walk of the whole partition: it reads the same whatever is held (a dozen items of
 * at most ~12 KB, where the tick's projection walk below reads thousands).
 */
export async function listHeldPage(table: StateTable, size: number, after?: string): Promise<HeldPage> {
  const rows: HeldRecord[] = [];
  const range = { limit: size + 1, ...(after === undefined ? {} : { after }) };
  for await (const page of queryPages(table, HELD_PK, range)) {
    // An item with marks only (no request) is no held request and takes no row.
    rows.push(...page.map(heldFromItem).filter((held): held is HeldRecord => held !== undefined));
    if (rows.length > size) break;
  }
  const shown = rows.slice(0, size);
  const last = shown.at(-1);
  return rows.length > size && last ? { rows: shown, next: last.requestId } : { rows: shown };
}
