/**
 * Everything the worker needs to know before deciding on one request, in one consistent
 * BatchGetItem instead of four reads: the request's final outcome (a copy that already ended),
 * the effect's claim, the pause flag and a veto. On the emulator and on DynamoDB alike, one round
 * trip per record matters: it is on the path of every message.
 */
import { type AttributeValue, BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import { type FinalOutcome, finalFromItem, finalItemKey } from './audit.js';
import { type EffectState, effectFromItem, effectItemKey } from './effects.js';
import { PAUSE_KEY, type PauseState, pauseFromItem } from './pause.js';
import type { StateTable } from './table.js';
import { type Veto, vetoFromItem, vetoItemKey } from './veto.js';

export interface RequestState {
  final: FinalOutcome | undefined;
  effect: EffectState;
  pause: PauseState;
  veto: Veto | undefined;
}

type Key = Record<string, AttributeValue>;
const id = (key: Key) => `${key.pk?.S}\u0000${key.sk?.S}`;

export async function readRequestState(
  table: StateTable,
  subject: { requestId: string; effectKey: string },
): Promise<RequestState> {
  const keys = {
    final: finalItemKey(subject.requestId),
    effect: effectItemKey(subject.effectKey),
    pause: PAUSE_KEY,
    veto: vetoItemKey(subject.effectKey),
  };
  const found = new Map<string, Key>();
  let pending: Key[] = Object.values(keys);
  // DynamoDB may leave keys unprocessed under load; ask again for those, a bounded number of times.
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === 5) throw new Error('the state table left keys unprocessed five times in a row');
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
    const out = await table.client.send(
      new BatchGetItemCommand({
        RequestItems: { [table.tableName]: { Keys: pending, ConsistentRead: true } },
      }),
    );
    for (const item of out.Responses?.[table.tableName] ?? []) found.set(id(item), item);
    pending = out.UnprocessedKeys?.[table.tableName]?.Keys ?? [];
  }
  return {
    final: finalFromItem(found.get(id(keys.final))),
    effect: effectFromItem(found.get(id(keys.effect))),
    pause: pauseFromItem(found.get(id(keys.pause))),
    veto: vetoFromItem(found.get(id(keys.veto))),
  };
}
