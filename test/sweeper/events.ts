/**
 * Events as the product's SDKs write them to the log, for the sweeper's tests: an exposure of a
 * config, a page view; `ts` is the event's own stamp (epoch milliseconds).
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
