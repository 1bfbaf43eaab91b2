/**
 * A mutation's call that failed for now (a 429, a 5xx, a timeout), after the effect was claimed and
 * the held items were marked executing (src/worker/process-record.ts `mutate`).
 */
import type { Decision } from '../policy/decide.js';
import { refundCounter } from '../state/counters.js';
import { markReached } from '../state/held-gates.js';
import { backOffIfRateLimited } from './defer.js';
import { RetryLater } from './errors.js';
import type { ExecutionResult } from './execute.js';
import { currentDate, type RecordContext, type RecordDeps } from './record.js';

/** What a mutation holds while its call is made: its claim and its held items' executing marks. */
export interface Holding {
  giveBack: (reached: boolean) => Promise<void>;
  letGo: () => Promise<void>;
  heldIds: string[];
  earlierMayHaveReached: boolean;
}

/**
 * A call that failed for now (a 429, a 5xx, a timeout): the message backs off, and the request is
 * retried. A call (this one, or an earlier copy's: our gate took over its executing mark) that may
 * have reached the platform keeps saying it executes: a cancel now could not promise that nothing
 * changed, so it is refused until the retry ends the request. Calls refused 429 on every attempt
 * did nothing: the request can be cancelled again.
 *
 * The limit unit (`unitTaken`: this attempt took one) goes back only when this attempt surely did
 * nothing (429s, a refused connection). One that may have reached the platform may have made the
 * change: its unit stays, or a request that then gives up leaves a change no counter counted and
 * the cap could be passed. Its retries take no second unit (process-record.ts, the effect's mark).
 */
export async function failedForNow(
  deps: RecordDeps,
  ctx: RecordContext,
  decision: Decision,
  outcome: Extract<ExecutionResult, { kind: 'transient' }>,
  holding: Holding,
  unitTaken: boolean,
): Promise<never> {
  const mayHaveReached = outcome.mayHaveReached || holding.earlierMayHaveReached;
  if (mayHaveReached) {
    await holding.giveBack(true);
    for (const heldId of holding.heldIds) await markReached(deps.table, heldId, currentDate(deps));
  } else await holding.letGo();
  if (decision.counter && unitTaken && !outcome.mayHaveReached)
    await refundCounter(deps.table, decision.counter);
  await backOffIfRateLimited(deps, ctx, outcome);
  throw new RetryLater(`transient failure: ${outcome.reason}`, { cause: outcome.error, mayHaveReached });
}
