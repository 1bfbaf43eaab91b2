/**
 * A human's "Deny" on an effect (the Deny button of an "ask" message). The webhook writes it;
 * the worker reads it before deciding, and the policy then denies automated requests for that
 * effect. A later human approval overrides it (automation yields to people, not the reverse).
 * The first Deny on an effect is the one that vetoes it: a later one (another person's click on
 * the same question, racing it or not) leaves it as written, and is told whose it is.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Veto } from '../policy/decide.js';
import { getItem, putIf } from './dynamo.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

/** Vetoes expire with the audit trail (90 days): by then the release has moved on. */
const KEEP_DAYS = 90;

/** The veto item's key, for readers that batch it with other items. */
export function vetoItemKey(effectKey: string) {
  return { pk: { S: `${ITEM_FAMILIES.veto}#${effectKey}` }, sk: { S: 'current' } };
}
const key = vetoItemKey;

/**
 * What became of a Deny's veto: `recorded`, the veto on the effect is this person's (written now,
 * or earlier by them: a retry or a second click, not rewritten); otherwise `veto` is another
 * person's, earlier, which stands.
 */
export interface VetoWrite {
  recorded: boolean;
  veto: Veto;
}

/**
 * Writes `veto` unless a live one is on the effect already, under `effectKey` or under `formerKey`
 * (the change's key before the digest keys, never written any more: src/policy/veto-key.ts
 * `formerVetoKeyFor`; a Deny there is earlier than any under the current key): the first Deny wins, and its name,
 * reason and time are never replaced by a later one (they credit the person who denied it, in the
 * audit trail and the channel). A veto past its expiry that TTL has not deleted yet is replaced:
 * it is about to go, and with it the later Deny. Read back on a refusal (dynalite has no
 * `ReturnValuesOnConditionCheckFailure`); written again if it went meanwhile.
 */
export async function writeVeto(
  table: StateTable,
  effectKey: string,
  veto: { by: string; at: string | Date; reason?: string | undefined },
  formerKey?: string,
): Promise<VetoWrite> {
  const at = veto.at instanceof Date ? veto.at : new Date(veto.at);
  const mine: Veto = { by: veto.by, at: at.toISOString(), ...(veto.reason ? { reason: veto.reason } : {}) };
  const item = {
    ...key(effectKey),
    by: { S: mine.by },
    at: { S: mine.at },
    expiresAt: { N: String(expiresAfterDays(at, KEEP_DAYS)) },
    ...(mine.reason ? { reason: { S: mine.reason } } : {}),
  };
  const nowSeconds = Math.floor(at.getTime() / 1000);
  const free = {
    expression: 'attribute_not_exists(pk) OR expiresAt <= :now',
    values: { ':now': { N: String(nowSeconds) } },
  };
  // Read first: nothing is written under a former key any more, so none can appear after this read.
  // One past its expiry (TTL not yet run) is about to go, as above.
  const former = formerKey === undefined ? undefined : await getItem(table, key(formerKey));
  const formerLive = Number(former?.expiresAt?.N ?? Number.POSITIVE_INFINITY) > nowSeconds;
  const earlierThere = formerLive ? vetoFromItem(former) : undefined;
  if (earlierThere) return { recorded: earlierThere.by === mine.by, veto: earlierThere };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await putIf(table, item, free)) return { recorded: true, veto: mine };
    const earlier = vetoFromItem(await getItem(table, key(effectKey)));
    if (earlier) return { recorded: earlier.by === mine.by, veto: earlier };
  }
  throw new Error(`the veto on ${effectKey} was neither written nor readable`);
}

export async function readVeto(table: StateTable, effectKey: string): Promise<Veto | undefined> {
  return vetoFromItem(await getItem(table, key(effectKey)));
}

export function vetoFromItem(Item: Record<string, AttributeValue> | undefined): Veto | undefined {
  if (!Item?.by?.S || !Item.at?.S) return undefined;
  const veto: Veto = { by: Item.by.S, at: Item.at.S };
  if (Item.reason?.S) veto.reason = Item.reason.S;
  return veto;
}
