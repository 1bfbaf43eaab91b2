/**
 * A human's "Deny" on an effect (the Deny button of an "ask" message). The webhook writes it;
 * the worker reads it before deciding, and the policy then denies automated requests for that
 * effect. A later human approval overrides it (automation yields to people, not the reverse).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Veto } from '../policy/decide.js';
import { getItem, putItem } from './dynamo.js';
import { expiresAfterDays, ITEM_FAMILIES, type StateTable } from './table.js';

/** Vetoes expire with the audit trail (90 days): by then the release has moved on. */
const KEEP_DAYS = 90;

/** The veto item's key, for readers that batch it with other items. */
export function vetoItemKey(effectKey: string) {
  return { pk: { S: `${ITEM_FAMILIES.veto}#${effectKey}` }, sk: { S: 'current' } };
}
const key = vetoItemKey;

export async function writeVeto(
  table: StateTable,
  effectKey: string,
  veto: { by: string; at: string | Date; reason?: string | undefined },
): Promise<void> {
  const at = veto.at instanceof Date ? veto.at : new Date(veto.at);
  await putItem(table, {
    ...key(effectKey),
    by: { S: veto.by },
    at: { S: at.toISOString() },
    expiresAt: { N: String(expiresAfterDays(at, KEEP_DAYS)) },
    ...(veto.reason ? { reason: { S: veto.reason } } : {}),
  });
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
