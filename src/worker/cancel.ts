/**
 * Cancelling a held request. `/autopilot cancel` marks the held item cancelled
 * (`markCancelled`: a conditional write that loses to a worker already executing it); the
 * release tick sends a marked request back at once, and the worker ends it as *cancelled*
 * (final, audit, the requester and the channel told). Any copy still in flight reads the mark
 * or the final with its state, and a copy past that read finds the mark when it tries to start
 * executing: a cancelled request is never executed later. `autopilot cancel` (a terminal, with
 * the operator's credentials) marks and then ends the request itself at once (cancel-now.ts).
 */
import { type CancelMark, type HeldRecord, markCancelled, readHeld } from '../state/held.js';
import type { StateTable } from '../state/table.js';

export interface CancelRequest {
  requestId: string;
  /** Who cancels, as the audit names them: `slack:U123`, `cli:alice`. */
  by: string;
  reason?: string | undefined;
  now: Date;
}

export type CancelOutcome =
  | { ok: true; held: HeldRecord; reason: string }
  | { ok: false; code: 'not-held' | 'ended' | 'not-allowed' | 'executing'; message: string };

export interface CancelDeps {
  table: StateTable;
  /** Whether the canceller may cancel this request (the grant for its action); the refusal's words otherwise. */
  mayCancel: (held: HeldRecord) => true | string;
}

/** The words an ending by cancel carries. */
export function cancelReason(mark: CancelMark): string {
  return `cancelled by ${mark.by}${mark.reason ? ` (“${mark.reason}”)` : ''} while it was held`;
}

const REFUSED = {
  'not-held': (id: string) => `request ${id} is not held (it ended, or never waited)`,
  executing: (id: string) =>
    `request ${id} has been sent to the Console API (it is executing, or an answer was lost and it is retried); it can no longer be cancelled`,
  'already-cancelled': (id: string) => `request ${id} is already cancelled`,
} as const;

export async function cancelHeldRequest(deps: CancelDeps, cancel: CancelRequest): Promise<CancelOutcome> {
  const { requestId } = cancel;
  const held = await readHeld(deps.table, requestId);
  if (!held || held.cancel) {
    const code = held ? 'ended' : 'not-held';
    return { ok: false, code, message: REFUSED[held ? 'already-cancelled' : 'not-held'](requestId) };
  }
  const allowed = deps.mayCancel(held);
  if (allowed !== true) return { ok: false, code: 'not-allowed', message: allowed };
  const mark: CancelMark = {
    by: cancel.by,
    at: cancel.now.toISOString(),
    ...(cancel.reason ? { reason: cancel.reason } : {}),
  };
  const marked = await markCancelled(deps.table, requestId, mark);
  if (marked !== 'marked') {
    const code = marked === 'executing' ? 'executing' : marked === 'not-held' ? 'not-held' : 'ended';
    return { ok: false, code, message: REFUSED[marked](requestId) };
  }
  return { ok: true, held, reason: cancelReason(mark) };
}
