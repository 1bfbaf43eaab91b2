/**
 * Which events `events [page]` shows. The API lists events in an order it does not specify
 * (DESIGN, "Facts the API spec leaves open"; spec 4.6): a platform that pages oldest-first
 * would have page 1 show the oldest events as "the latest". So the order is read from page 1's
 * timestamps, by the sweeper's rule (src/sweeper/event-order.ts: the way most pairs go, since a
 * platform listing by arrival puts a client's late batch among events stamped later, and one such
 * event must not leave the order unknown), and the person's page `p` is always the `p`-th ten
 * counting from the newest listed:
 *
 * - newest-first: the platform's page `p`, as it is;
 * - oldest-first with a known total: the one or two platform pages that hold positions
 *   `total - 10p … total - 10(p-1) - 1`, reversed, so pages stay ten apart and continue exactly;
 * - the whole log on page 1: sorted by time;
 * - anything else (equal or unreadable timestamps, as many pairs going up as down,
 *   oldest-first without a total): the platform's page `p` in its own order, and the reply
 *   says so rather than call it the latest.
 *
 * Page 1 and page `p` are asked for together (newest-first is the common case), so a newest-first
 * platform costs one round trip; an oldest-first one a second.
 */
import { servedOrder } from '../sweeper/event-order.js';
import { eventTime } from '../sweeper/identity.js';
import type { ConsoleReads, ReadCallOptions } from './reads.js';

type EventPage = Awaited<ReturnType<ConsoleReads['events']['list']>>;
type Loose = Record<string, unknown>;

export interface EventsView {
  rows: Loose[];
  /** True when `rows` are the person's page counted from the newest event, newest first. */
  newestFirst: boolean;
  /** For the paging hint; `nextPage` is set when an older (or, unordered, a further) page exists. */
  pagination: EventPage['pagination'];
}

// As the sweeper reads it: '' (an event with no timestamp, or a null element of the page, which
// reads as an empty record) is unreadable, not 1970 (`Number('')`), which turned the order around.
const timeOf = (event: Loose): number => eventTime(event as { timestamp: string; name: string });

/**
 * An entry with nothing to show (no time, name, source, user or value): most often one that was
 * no record at all (`null`, a string), which the schema reads as an empty one in its place so that
 * pagination stays right. Its row says so rather than be a row of blanks.
 */
export const UNREADABLE_EVENT = '(unreadable record)';
export function unreadableEvent(event: Loose): boolean {
  return ['timestamp', 'name', 'source', 'userID', 'value'].every((field) => {
    const value = event[field];
    return value === undefined || value === null || value === '';
  });
}

/** The whole log is on page 1: no further page, and no more events than it holds. */
function wholeLog(first: EventPage): boolean {
  const total = first.pagination?.totalItems;
  return !first.pagination?.nextPage && (total === undefined || total <= first.data.length);
}

function hint(total: number, perPage: number, page: number): EventPage['pagination'] {
  return { totalItems: total, itemsPerPage: perPage, nextPage: page * perPage < total ? 'older' : null };
}

export async function latestEvents(
  events: ConsoleReads['events'],
  page: number,
  perPage: number,
  options: ReadCallOptions,
): Promise<EventsView> {
  const list = (p: number) => Promise.resolve(events.list({ page: p, limit: perPage }, options));
  const [first, asked] = await Promise.all([list(1), page === 1 ? undefined : list(page)]);
  const firstRows = first.data as Loose[];
  const order = servedOrder(firstRows.map(timeOf));

  if (wholeLog(first) && firstRows.every((e) => Number.isFinite(timeOf(e)))) {
    const sorted = [...firstRows].sort((a, b) => timeOf(b) - timeOf(a));
    const rows = sorted.slice((page - 1) * perPage, page * perPage);
    return { rows, newestFirst: true, pagination: hint(sorted.length, perPage, page) };
  }
  if (order === 'newest-first') {
    const shown = asked ?? first;
    return { rows: shown.data as Loose[], newestFirst: true, pagination: shown.pagination };
  }
  const total = first.pagination?.totalItems;
  if (order === 'oldest-first' && total !== undefined) {
    // A platform that caps `limit` pages by its own size: positions are counted in it.
    const serverPer = Math.max(1, first.pagination?.itemsPerPage ?? perPage);
    const from = Math.max(0, total - page * perPage);
    const to = total - (page - 1) * perPage; // exclusive
    if (to <= 0) return { rows: [], newestFirst: true, pagination: hint(total, perPage, page) };
    const pages: number[] = [];
    for (let p = Math.floor(from / serverPer) + 1; p <= Math.ceil(to / serverPer); p++) pages.push(p);
    const fetched = await Promise.all(
      pages.map((p) => (p === 1 ? first : p === page && asked ? asked : list(p))),
    );
    const byPosition = fetched.flatMap((got, i) =>
      (got.data as Loose[]).map((event, k) => ({ pos: ((pages[i] as number) - 1) * serverPer + k, event })),
    );
    const rows = byPosition
      .filter(({ pos }) => pos >= from && pos < to)
      .sort((a, b) => b.pos - a.pos)
      .map(({ event }) => event);
    return { rows, newestFirst: true, pagination: hint(total, perPage, page) };
  }
  // The order cannot be known (or the end of an oldest-first log cannot be found without reading
  // it all): the platform's page as it comes, said to be so.
  const shown = asked ?? first;
  return { rows: shown.data as Loose[], newestFirst: false, pagination: shown.pagination };
}
