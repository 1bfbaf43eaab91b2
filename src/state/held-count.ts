/**
 * How many requests are held, and why in broad terms, for `/autopilot status`: someone deciding
 * whether to `resume` must see what waits for it. One Query of the held partition (the read
 * `held` already makes, so no new grant), limited to a few dozen items and only the attributes
 * that say why: `status` stays one cheap read however much a long pause has held back.
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { MAX_RELEASES } from './held.js';
import { heldEntryFromItem } from './held-list.js';
import { HELD_PK } from './held-marks.js';
import type { StateTable } from './table.js';

/** What a held request waits for, in the words `status` uses. */
export type HeldKind = 'resume' | 'window' | 'limit' | 'answer' | 'approved' | 'cancelled' | 'stuck';

export interface HeldCount {
  /** The held requests read: at most `cap`. */
  count: number;
  /** More are held than were counted (`count`+). */
  more: boolean;
  /** The counted ones by what they wait for. */
  kinds: Partial<Record<HeldKind, number>>;
}

/** Past this many `status` says "50+": `held` pages through them all. */
export const HELD_COUNT_CAP = 50;

/**
 * The held requests, up to `cap`, counted by what they wait for; `more` when more may be held
 * than were counted. An item with no request (marks only) is no held request: not counted, by the
 * same test the release tick lists by (held-list.ts).
 */
export async function countHeld(table: StateTable, cap = HELD_COUNT_CAP): Promise<HeldCount> {
  const out = await table.client.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: HELD_PK } },
      // `why` is not reserved, but names keep the projection safe as attributes come and go.
      ProjectionExpression: '#id, #since, #why, #answered, #cancelled, #releases',
      ExpressionAttributeNames: {
        '#id': 'requestId',
        '#since': 'since',
        '#why': 'why',
        '#answered': 'answeredBy',
        '#cancelled': 'cancelledBy',
        '#releases': 'releases',
      },
      ConsistentRead: true,
      Limit: cap + 1,
    }),
  );
  const kinds: Partial<Record<HeldKind, number>> = {};
  const held = (out.Items ?? []).filter((item) => heldEntryFromItem(item) !== undefined);
  for (const item of held.slice(0, cap)) {
    const kind = kindOf(item.why?.S, {
      answered: Boolean(item.answeredBy?.S),
      cancelled: Boolean(item.cancelledBy?.S),
      stuck: Number(item.releases?.N ?? 0) >= MAX_RELEASES,
    });
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  // The Limit was reached (DynamoDB then names a next key): more may be held than were read.
  const more = held.length > cap || out.LastEvaluatedKey !== undefined;
  return { count: Math.min(held.length, cap), more, kinds };
}

/** In the order `held` shows it (held.ts `nextLookText`): stuck, then cancelled, then the wait. */
function kindOf(
  why: string | undefined,
  marks: { answered: boolean; cancelled: boolean; stuck: boolean },
): HeldKind {
  if (marks.stuck) return 'stuck';
  if (marks.cancelled) return 'cancelled';
  if (why === 'paused') return 'resume';
  if (why === 'limit') return 'limit';
  if (why === 'ask') return marks.answered ? 'approved' : 'answer';
  return 'window';
}
