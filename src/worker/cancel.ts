/**
 * Cancelling a held request. `/autopilot cancel` marks the held item cancelled
 * (`markCancelled`: a conditional write that loses to a worker already executing it or recording
 * its end); the release tick sends a marked request back at once, and the worker ends it as
 * *cancelled* (final, audit, the requester and the channel told). Any copy still in flight reads
 * the mark or the final with its state, and a copy past that read finds the mark when it tries to
 * start executing or to record another end (the gates on the held item: src/state/held-gates.ts):
 * a cancelled request is never executed later, nor ended otherwise. `autopilot cancel` (a
 * terminal, with the operator's credentials) marks and then ends the request itself at once
 * (cancel-now.ts).
 */
import { type FinalOutcome, readFinal } from '../state/audit.js';
import { type CancelMark, type HeldRecord, readHeld } from '../state/held.js';
import { markCancelled } from '../state/held-gates.js';
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
  | { ok: false; code: 'not-held' | 'ended' | 'not-allowed' | 'executing'; message: string }
  /** A worker (or the tick) is recording the request's own end: `final` once it is written. */
  | { ok: false; code: 'ending'; message: string; held: HeldRecord; final?: FinalOutcome | undefined };

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
  ending: (id: string) =>
    `request ${id} was not cancelled: the worker is recording how it ended right now (\`why ${id}\` shows it)`,
} as const;

/** The refusal of a cancel that came after the request's own end (a worker's denial, say) had begun. */
const endedAs = (id: string, final: FinalOutcome) =>
  `request ${id} was not cancelled: it had already ended as ${final.result} (${final.rule}: ${final.reason})`;

export async function cancelHeldRequest(deps: CancelDeps, cancel: CancelRequest): Promise<CancelOutcome> {
  const { requestId } = cancel;
  const held = await readHeld(deps.table, requestId);
  if (!held || held.cancel) {
    const code = held ? 'ended' : 'not-held';
    return { ok: false, code, message: REFUSED[held ? 'already-cancelled' : 'not-held'](requestId) };
  }
  const allowed = deps.mayCancel(held);
  if (allowed !== true) return { ok: false, code: 'not-allowed', message: allowed };
  // Ended already, the held record kept until that end is told (its writer may have died after
  // its final, its ending lease run out: a later pass tells it): a cancel now ends nothing, and is
  // not marked. A final is written under that lease (`startEndingHeld`), which refuses the mark.
  const ended = await readFinal(deps.table, requestId);
  if (ended) return { ok: false, code: 'ending', message: endedAs(requestId, ended), held, final: ended };
  const mark: CancelMark = {
    by: cancel.by,
    at: cancel.now.toISOString(),
    ...(cancel.reason ? { reason: cancel.reason } : {}),
  };
  const marked = await markCancelled(deps.table, requestId, mark);
  // The worker (or the tick) began to record the request's end first (src/state/held-gates.ts):
  // that end is the request's and is told by its writer; this cancel ends nothing, and says how it ended.
  if (marked === 'ending') {
    const final = await readFinal(deps.table, requestId);
    const ended = final && final.result !== 'cancelled' ? final : undefined;
    const message = ended ? endedAs(requestId, ended) : REFUSED.ending(requestId);
    return { ok: false, code: 'ending', message, held, final: ended };
  }
  if (marked !== 'marked') {
    const code = marked === 'executing' ? 'executing' : marked === 'not-held' ? 'not-held' : 'ended';
    return { ok: false, code, message: REFUSED[marked](requestId) };
  }
  return { ok: true, held, reason: cancelReason(mark) };
}
