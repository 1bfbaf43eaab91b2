/**
 * What the platform's answer to an approve says beyond "accepted". The spec does not say what a
 * 2xx to an approve sent with `x-respect-review-settings: true` means for a phase that requires a
 * review: the trigger moved on, or the phase left waiting for its reviewer. The trigger the
 * platform returns (spec 4.7) tells which, and a reply that said only "approved" told a release
 * manager (and a CI gate's log) the pipeline had moved on when it may not have.
 *
 * The answer is untrusted: only compared with the request's own phase id, never quoted.
 */

/** Said after "phase … approved" when the answer still names that phase the trigger's current one. */
export const STILL_CURRENT_NOTE =
  " (the platform's answer still names it the trigger's current phase: it may wait for a review before the pipeline moves on)";

/** The note for an approve's answer: STILL_CURRENT_NOTE when its trigger is still at `phaseId`, else nothing. */
export function approveAnswerNote(answer: unknown, phaseId: string): string {
  if (answer === null || typeof answer !== 'object') return '';
  return (answer as { currentPhaseID?: unknown }).currentPhaseID === phaseId ? STILL_CURRENT_NOTE : '';
}
