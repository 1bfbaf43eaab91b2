/**
 * The pause switch: `/autopilot pause` stops every automated mutation until `resume`.
 * The webhook writes it; the worker and sweeper read it before they act.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { getItem, putItemReplacing } from './dynamo.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

export interface PauseState {
  paused: boolean;
  by?: string;
  reason?: string;
  since?: string;
}

const KEY = { pk: { S: `${ITEM_FAMILIES.control}#pause` }, sk: { S: 'current' } };

/** The pause item's key, for readers that batch it with other items (the worker). */
export const PAUSE_KEY = KEY;

export async function readPause(table: StateTable): Promise<PauseState> {
  return pauseFromItem(await getItem(table, KEY));
}

/** The pause state from a stored item (or its absence). */
export function pauseFromItem(Item: Record<string, AttributeValue> | undefined): PauseState {
  if (Item?.paused?.BOOL !== true) return { paused: false };
  const state: PauseState = { paused: true };
  if (Item.by?.S) state.by = Item.by.S;
  if (Item.reason?.S) state.reason = Item.reason.S;
  if (Item.since?.S) state.since = Item.since.S;
  return state;
}

/** Writes the switch; the state it replaced (so `resume` can tell it was not paused). */
export async function writePause(
  table: StateTable,
  change: { paused: boolean; by: string; reason?: string | undefined; at: Date },
): Promise<PauseState> {
  const replaced = await putItemReplacing(table, {
    ...KEY,
    paused: { BOOL: change.paused },
    by: { S: change.by },
    since: { S: change.at.toISOString() },
    ...(change.reason ? { reason: { S: change.reason } } : {}),
  });
  return pauseFromItem(replaced);
}
