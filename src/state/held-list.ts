/**
 * The held partition as the release tick reads it every minute. A held item carries its request
 * (up to ~12 KB for a long disable_groups), and a long pause can hold thousands: read whole, the
 * partition would not fit the worker's 256 MB, and read up to a page cap it silently left out the
 * requests whose ids sort last (never released, nor kept through a pause). So the tick pages
 * through a projection of the few small fields that say what is due (`heldEntryPages`), with no
 * page cap, and reads the full records by key (`readHeldRecords`) only for those it acts on.
 */
import type { Item } from './dynamo.js';
import { batchGet } from './dynamo-batch.js';
import { queryPages } from './dynamo-query.js';
import {
  cancelFromItem,
  type HeldRecord,
  type HeldWhy,
  heldFromItem,
  heldItemKey,
  readHeld,
} from './held.js';
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

/** One page of `/autopilot held`: how many are held, and the rows shown, with their requests. */
export interface HeldPage {
  total: number;
  rows: HeldRecord[];
}

/**
 * The held requests from `offset` (oldest wait first, as `listHeld` orders them), `size` of them
 * with their requests: the listing is the projection, and only the rows shown are read whole (one
 * GetItem each: the webhook's grant on the held partition), so a page costs the same whatever is held.
 */
export async function listHeldPage(table: StateTable, offset: number, size: number): Promise<HeldPage> {
  const entries: HeldEntry[] = [];
  for await (const page of heldEntryPages(table)) entries.push(...page);
  entries.sort((a, b) => a.since.localeCompare(b.since) || a.requestId.localeCompare(b.requestId));
  const shown = entries.slice(offset, offset + size);
  const rows = await Promise.all(shown.map((entry) => readHeld(table, entry.requestId)));
  return { total: entries.length, rows: rows.filter((held): held is HeldRecord => held !== undefined) };
}
