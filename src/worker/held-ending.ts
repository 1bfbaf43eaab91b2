/**
 * What a held request's end is when it is ended at once, outside the worker's own pass over it
 * (cancel-now.ts, `endHeldNow`): its words and flags, and another pass's stored end told as found.
 */
import type { FinalOutcome } from '../state/audit.js';
import type { HeldRecord } from '../state/held.js';
import { mayHaveBeenDone, type OutcomeResult } from './replies.js';

/** How a held request ends when it is ended at once, outside the worker's own pass over it. */
export interface HeldEnding {
  result: OutcomeResult;
  rule: string;
  reason: string;
  dryRun: boolean;
  /** The request whose end this repeats (its change made by another): told "Already done … by request X". */
  replayOf?: string;
  /** Denied, but an earlier attempt may have made the change (replies.ts, `mayHaveBeenDone`). */
  mayHaveBeenDone?: boolean | undefined;
  /** A person's answer ends it (answered.ts): who, kept in the audit record (`policy replay` counts it apart). */
  answeredBy?: string;
  /** The release tick ends a stuck wait at its expiry (stuck.ts): kept in the audit record (`policy replay` counts it apart). */
  stuckExpired?: boolean;
  /**
   * The request (an Approve click's copy) whose executing mark on the held item is this pass's own:
   * it ends the question it executed. Any other live mark refuses the end (held-gates.ts).
   */
  answering?: string;
}

/**
 * Another pass's stored end, told as the worker tells one it finds untold (finish.ts `tellUntold`):
 * its result, rule and words as stored (an answer or a stuck expiry says so in them), a dry run as
 * this pass knows it (a cancel is none), and the change said maybe made when an attempt may have
 * reached the platform.
 */
export function storedEnding(found: FinalOutcome, held: HeldRecord, ending: HeldEnding): HeldEnding {
  const result = found.result as OutcomeResult;
  const dryRun = result === 'would-mutate' || (result !== 'cancelled' && ending.dryRun);
  const stored = { result, rule: found.rule, reason: found.reason, dryRun, ...endFlags(found) };
  return held.reachedAt !== undefined || held.executingBy !== undefined ? mayHaveBeenDone(stored) : stored;
}

/**
 * What an end is besides its result (a person's answer, the tick's expiry), kept in its final so
 * that whoever tells it records it so. Finals written before they were kept have neither: told
 * without them, their words (and no decision inputs) still say so to `policy replay`.
 */
export function endFlags(end: Pick<HeldEnding, 'answeredBy' | 'stuckExpired' | 'mayHaveBeenDone'>) {
  return {
    ...(end.answeredBy ? { answeredBy: end.answeredBy } : {}),
    ...(end.stuckExpired ? { stuckExpired: true } : {}),
    // Whether an attempt may have made the change: stored, read by the CI gate and the headline.
    ...(end.mayHaveBeenDone === undefined ? {} : { mayHaveBeenDone: end.mayHaveBeenDone }),
  };
}

export function withoutFlags({ answeredBy: _a, stuckExpired: _s, ...ending }: HeldEnding): HeldEnding {
  return ending;
}
