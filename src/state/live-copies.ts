/**
 * A request's copies that wait in their back-off: one request can be on the queue as several
 * messages (a producer retrying SendMessage sends it twice), and a copy failing on its last receive
 * must not tell "given up" while another is still coming back to end the request
 * (src/worker/give-up.ts). Each copy put back for a retry registers its message id with until when
 * it may come back and run; the give-up takes its own off and reads the others in the same update.
 *
 * One small item per request (`copies#<requestId>`, sk `live`), one attribute per message
 * (`m:<messageId>` = until, epoch ms), and the mark of a give-up that deferred (`givenUp`), each
 * write one UpdateItem. Entries are not taken off when a copy ends the request (its end is a final
 * or a hold, which the give-up reads first): they run out at their `until`, and the item goes with
 * the table's TTL.
 */
import { itemKey } from './dynamo.js';
import { updateIf, updateItem } from './dynamo-update.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

/** Kept a day past the latest registration: longer than any back-off (SQS caps a visibility at 12 h). */
const KEEP_DAYS = 1;
const ENTRY_PREFIX = 'm:';

const liveKey = (requestId: string) => itemKey(`${ITEM_FAMILIES.copies}#${requestId}`, 'live');

/**
 * A request sent with no id of its producer's is named for its one message (`sqs:<messageId>`): no
 * other message can be a copy of it (a redrive is another message, so another request). There is
 * nothing to track: no write on each failed attempt, no read on the last.
 */
const oneCopyOnly = (requestId: string, messageId: string) => requestId === `sqs:${messageId}`;

/** Registers message `messageId` of the request as live (it comes back and runs) until `untilMs`. */
export async function registerLiveCopy(
  table: StateTable,
  requestId: string,
  messageId: string,
  untilMs: number,
): Promise<void> {
  if (oneCopyOnly(requestId, messageId)) return;
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
 * The give-up mark: a copy gave up on its last receive (it took itself off with `givenUp`). The
 * copy that takes itself off last with the mark there is the last copy standing: it tells the
 * give-up (src/worker/give-up.ts). Its last failure and whether that attempt may have reached the
 * platform, for the telling; `by` tells one mark from the next (clearGivenUp).
 */
export interface GivenUpMark {
  by: string;
  failure: string;
  mayHaveReached: boolean;
}

/**
 * What is left once a copy took itself off: the other copies still live, the give-up mark, and the
 * message ids of every copy that gave up since the mark was last settled (`gaveUp`). The copy that
 * tells names them on its `dead-lettered` record: a CI gate waits on its own message id, and one
 * whose give-up deferred ends with the record of the copy it deferred to (src/cli/wait.ts).
 */
export interface LiveCopiesLeft {
  others: string[];
  givenUp?: GivenUpMark;
  gaveUp?: string[];
}

const MARK = 'givenUp';
/** A string set: one mark is overwritten by the next give-up, and each deferring copy's gate needs its own id. */
const GAVE_UP = 'gaveUp';

/**
 * Takes message `messageId` off the request's live copies (it will not come back) and answers the
 * other copies still live at `nowMs` (their message ids) and the give-up mark, from the same update.
 * A copy that gives up (`givenUp`) marks the item in that update: the mark and its removal are one
 * write, so of two copies taking themselves off together exactly one sees no other live, and that
 * one sees the mark of the other (DynamoDB applies the updates one after the other).
 */
export async function takeOffLiveCopy(
  table: StateTable,
  requestId: string,
  messageId: string,
  nowMs: number,
  givenUp?: Omit<GivenUpMark, 'by'>,
  /** Keep a give-up mark already there (its failure is the one told): the release tick's, for a copy that died. */
  keepEarlierMark = false,
): Promise<LiveCopiesLeft> {
  if (oneCopyOnly(requestId, messageId)) return { others: [] };
  const mark = givenUp && JSON.stringify({ by: `${messageId}@${nowMs}`, ...givenUp });
  const setMark = keepEarlierMark ? '#g = if_not_exists(#g, :mark)' : '#g = :mark';
  const { Attributes } = await updateItem(table, liveKey(requestId), {
    // An update creates the item when absent: it then goes with the table's TTL too.
    expression: `REMOVE #m SET expiresAt = if_not_exists(expiresAt, :expires)${mark ? `, ${setMark} ADD #u :me` : ''}`,
    names: { '#m': `${ENTRY_PREFIX}${messageId}`, ...(mark ? { '#g': MARK, '#u': GAVE_UP } : {}) },
    values: {
      ':expires': { N: String(expiresAfterDays(new Date(nowMs), KEEP_DAYS)) },
      ...(mark ? { ':mark': { S: mark }, ':me': { SS: [messageId] } } : {}),
    },
    returnAll: true,
  });
  const others = Object.entries(Attributes ?? {})
    .filter(([name, value]) => name.startsWith(ENTRY_PREFIX) && Number(value.N) > nowMs)
    .map(([name]) => name.slice(ENTRY_PREFIX.length));
  const stored = Attributes?.[MARK]?.S;
  const gaveUp = Attributes?.[GAVE_UP]?.SS;
  return {
    others,
    ...(stored ? { givenUp: JSON.parse(stored) as GivenUpMark } : {}),
    ...(gaveUp?.length ? { gaveUp } : {}),
  };
}

/**
 * Takes the give-up mark off once the last copy standing has settled it (told it, or found the
 * request ended or held): a later message under the id (a CI retry sent twice) is not taken for a
 * copy deferred to. Only that same mark: a give-up since then marked anew for copies live now.
 */
export async function clearGivenUp(table: StateTable, requestId: string, mark: GivenUpMark): Promise<void> {
  await updateIf(
    table,
    liveKey(requestId),
    { expression: `REMOVE ${MARK}, ${GAVE_UP}`, values: { ':mark': { S: JSON.stringify(mark) } } },
    { expression: `${MARK} = :mark` },
  );
}
