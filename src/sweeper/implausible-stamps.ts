/**
 * Exposures stamped implausibly far behind their place in the log. Client SDKs stamp events: one
 * stamping seconds instead of milliseconds writes January 1970, a device whose clock was reset
 * writes 2000. The event record carries no time of the platform's (spec 2.12), but a log listed
 * by arrival lists an event after the ones logged before it: listed after an event stamped T, it
 * was logged after T (as far as that one's clock tells; stamps ahead of the run are not taken,
 * src/sweeper/event-walk.ts `lastTs`). Recorded at its own stamp, such an exposure made the config
 * it names look unused for decades, and a config in daily use through that client was archived.
 *
 * An exposure stamped further behind the newest stamp listed before it than the late walk reaches
 * (`LATE_EXPOSURE_BOUND_MS`: a client logging later than that is not looked for at all) counts as
 * seen at that newest stamp. A config only ever looks more recently used for it, never less:
 * its archive may wait, it is never queued sooner. Plausibly late exposures keep their stamps.
 */

/** How far behind its place in the log an exposure may be stamped and be taken at its stamp. */
export const PLAUSIBLY_BEHIND_MS = 6 * 3_600_000;

/**
 * The time an event stamped `ts`, listed after events stamped up to `newestBefore`, was logged no
 * earlier than, when its stamp lies implausibly far behind that; undefined otherwise (its stamp
 * stands, or nothing was listed before it).
 */
export function loggedNoEarlierThan(ts: number, newestBefore: number): number | undefined {
  if (Number.isNaN(ts) || !Number.isFinite(newestBefore)) return undefined;
  return newestBefore - ts > PLAUSIBLY_BEHIND_MS ? newestBefore : undefined;
}
