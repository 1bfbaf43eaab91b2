/**
 * An Approve click answers a held question (src/state/held.ts, `why = ask`) for good: the
 * first click to mark it wins, on the held item's own conditional write, so a second click
 * (Approve by someone else, or Deny, which `lookNow` refuses once answered) racing it or coming
 * while the approved copy waits for the worker is told the question is answered, instead of
 * being shown as a denial or a second approval of a change that is going ahead. The mark goes
 * with the held item when the question ends (the approved copy ends it); a cancel still wins.
 */

import type { HeldRecord } from './held.js';
import { takeOffMark, writeMark } from './held-marks.js';
import type { StateTable } from './table.js';

/**
 * Marks the question `requestId` answered by Slack user `by`; true when it is (also when `by`
 * marked it before: a Slack retry of the same click). False when it is no open question.
 */
export async function markAnswered(
  table: StateTable,
  requestId: string,
  by: string,
  at: Date,
): Promise<boolean> {
  // A retry of the same click finds its own mark: no refusal (held-marks.ts: an answer yields to another).
  // It keeps the first answer's time: the tick and the worker wait past the expiry for a question
  // answered before it (src/worker/answer-pending.ts), and a repeat of that click past the expiry
  // (openQuestion lets the same person's through) would otherwise move the answer past it and have
  // the question denied as expired while the in-time click's copy is on its way.
  return writeMark(table, requestId, {
    mark: 'answered',
    update: 'SET answeredBy = :by, answeredAt = if_not_exists(answeredAt, :at)',
    values: { ':by': { S: by }, ':at': { S: at.toISOString() } },
    own: { answered: 'answeredBy = :by' },
  });
}

/** The click's approved copy never reached the queue: the question is open again. */
export async function unmarkAnswered(table: StateTable, requestId: string, by: string): Promise<void> {
  await takeOffMark(table, requestId, 'answered', { S: by });
}

/**
 * How `held` shows why a request waits: a question a click answered says by whom, and in the
 * CLI when (to the minute), so an answer whose copy never ran (dead-lettered) shows its age.
 * Chat leaves the time out: its table cells are cut at 40 characters.
 */
export function whyText(held: HeldRecord, withTime = false): string {
  if (!held.answeredBy) return held.why;
  const minute = held.answeredAt?.replace(/:\d\d(\.\d+)?Z$/, 'Z');
  const at = withTime && minute ? ` at ${minute}` : '';
  return `${held.why}: approved by ${held.answeredBy}${at}, on its way`;
}
