/**
 * A request's copies that wait in their back-off: one request can be on the queue as several
 * messages (a producer retrying SendMessage sends it twice), and a copy failing on its last receive
 * must not tell "given up" while another is still coming back to end the request
 * (src/worker/give-up.ts). Each copy put back for a retry registers its message id with until when
 * it may come back and run; the give-up takes its own off and reads the others in the same update.
 *
 * One small item per request (`copies#<requestId>`, sk `live`), one attribute per message
 * (`m:<messageId>` = until, epoch ms), each write one UpdateItem. Entries are not taken off when a
 * copy ends the request (its end is a final or a hold, which the give-up reads first): they run out
 * at their `until`, and the item goes with the table's TTL.
 */
import { itemKey } from './dynamo.js';
import { updateItem } from './dynamo-update.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

/** Kept a day past the latest registration: longer than any back-off (SQS caps a visibility at 12 h). */
const KEEP_DAYS = 1;
const ENTRY_PREFIX = 'm:';

const liveKey = (requestId: string) => itemKey(`${ITEM_FAMILIES.copies}#${requestId}`, 'live');

/** Registers message `messageId` of the request as live (it comes back and runs) until `untilMs`. */
export async function registerLiveCopy(
  table: StateTable,
  requestId: string,
  messageId: string,
  untilMs: number,
): Promise<void> {
  await updateItem(table, liveKey(requestId), {
    expression: 'SET #m = :until, expiresAt = :expires',
    names: { '#m': `${ENTRY_PREFIX}${messageId}` },
    values: {
      ':until': { N: String(untilMs) },
      ':expires': { N: String(expiresAfterDays(new Date(untilMs), KEEP_DAYS)) },
    },
  });
}

/**
 * Takes message `messageId` off the request's live copies (it will not come back) and answers the
 * other copies still live at `nowMs` (their message ids), from the same update.
 */
export async function takeOffLiveCopy(
  table: StateTable,
  requestId: string,
  messageId: string,
  nowMs: number,
): Promise<string[]> {
  const { Attributes } = await updateItem(table, liveKey(requestId), {
    // An update creates the item when absent: it then goes with the table's TTL too.
    expression: 'REMOVE #m SET expiresAt = if_not_exists(expiresAt, :expires)',
    names: { '#m': `${ENTRY_PREFIX}${messageId}` },
    values: { ':expires': { N: String(expiresAfterDays(new Date(nowMs), KEEP_DAYS)) } },
    returnAll: true,
  });
  return Object.entries(Attributes ?? {})
    .filter(([name, value]) => name.startsWith(ENTRY_PREFIX) && Number(value.N) > nowMs)
    .map(([name]) => name.slice(ENTRY_PREFIX.length));
}
