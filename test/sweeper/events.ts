/**
 * Events as the product's SDKs write them to the log, for the sweeper's tests: an exposure of a
 * config, a page view, a CI job's checks passing; `ts` is the event's own stamp (epoch milliseconds).
 */
import type { EventLike } from '../../src/sweeper/types.js';

/** An exposure of `config` stamped `ts`. */
export const exposure = (ts: number, config: string): EventLike => ({
  timestamp: String(ts),
  name: 'config_exposure',
  metadata: { config },
});

/** A page view stamped `ts`. */
export const pageView = (ts: number): EventLike => ({ timestamp: String(ts), name: 'page_view' });

/** The CI's `release_checks_passed` for `triggerID`'s phase `phaseID`, stamped `ts`: what the canary rule approves. */
export const checksPassed = (ts: number, triggerID: string, phaseID: string): EventLike => ({
  timestamp: String(ts),
  name: 'release_checks_passed',
  metadata: { triggerID, phaseID },
});
