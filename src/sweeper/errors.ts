/** The sweeper's failures. */

/** The event log's pages contradict the order the run detected (or the policy configured). */
export class EventOrderError extends Error {
  override name = 'EventOrderError';
}

/**
 * Thrown by the scheduled handler when a run could not read the platform's events. Progress up to
 * the last page read is already saved; throwing makes the failure a Lambda error, so the
 * stack's "sweeper errors" alarm fires instead of a silent partial run.
 */
export class SweepFailedError extends Error {
  override name = 'SweepFailedError';
}

/**
 * Thrown by the scheduled handler, before anything is read or written, for an invocation whose
 * time no real schedule can have (src/sweeper/run-time.ts): a Lambda error, so the alarm fires.
 */
export class RunTimeError extends Error {
  override name = 'RunTimeError';
}
