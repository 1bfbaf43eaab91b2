/**
 * Paging of the list reads (`segments [page]`, `events [page]`): the hint under a page ("Page 1 of
 * 4 · 40 in all · `/autopilot segments 2` for more") and the answer to a page past the last.
 */
import { code, ephemeral, section } from './blocks.js';
import type { ReadOutcome } from './read-failures.js';

export interface PageLike<T> {
  data: T[];
  pagination?:
    | {
        pageNumber?: number | undefined;
        totalItems?: number | undefined;
        nextPage?: string | null | undefined;
        itemsPerPage?: number | undefined;
      }
    | undefined;
}

/** Rows a paged read asks for. */
export const PAGE_SIZE = 10;

/** How many pages the platform says there are (at least 1), when it says how many items it holds. */
function pageCount(page: PageLike<object>): number | undefined {
  const total = page.pagination?.totalItems;
  const perPage = page.pagination?.itemsPerPage ?? PAGE_SIZE;
  return total !== undefined && perPage > 0 ? Math.max(1, Math.ceil(total / perPage)) : undefined;
}

export function pagingHint(page: PageLike<object>, slash: string, command: string, current: number): string {
  const total = page.pagination?.totalItems;
  const totalPages = pageCount(page);
  const where = totalPages !== undefined ? `Page ${current} of ${totalPages}` : `Page ${current}`;
  const more = page.pagination?.nextPage ? ` · \`${slash} ${command} ${current + 1}\` for more` : '';
  return `${where}${total !== undefined ? ` · ${total} in all` : ''}${more}`;
}

/**
 * The answer to an empty page the platform says is past its last (`segments 5` of 4 pages): that
 * there is no such page, and the command for the last one, not "Page 5 of 4" over an empty table.
 * Undefined when the page may exist (the platform gave no total).
 */
export function pastTheEnd(
  page: PageLike<object>,
  slash: string,
  command: 'segments' | 'events',
  current: number,
): ReadOutcome | undefined {
  const last = pageCount(page);
  if (page.pagination?.totalItems === 0) {
    const text = `There are no ${command}.`;
    return { outcome: 'ok', reply: ephemeral(text, [section(text)]) };
  }
  if (last === undefined || current <= last) return undefined;
  const text = `There is no page ${current} of ${command}; the last is page ${last}`;
  return {
    outcome: 'ok',
    reply: ephemeral(`${text}.`, [section(`${text}: ${code(`${slash} ${command} ${last}`)}`)]),
  };
}
