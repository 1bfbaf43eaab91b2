/**
 * Step 5 of a decision (src/policy/decide.ts): the stale sweep's archives, decided again when the
 * worker executes them, maybe long after the sweep judged (held over `maxPerDay`, a pause).
 * Pure, like decide.ts.
 */
import type { ActionRequest, ArchiveConfigRequest } from '../actions/request.js';
import { aheadOf } from '../util/future-times.js';
import { type Context, HOUR } from './action-rules.js';
import type { Decision, Step } from './decide.js';

/**
 * 5. The stale sweep judged at `requestedAt` that the config had no exposure in `staleAfterDays`;
 * a request executed later (held over `maxPerDay`, a pause, a backlog) must not archive a config
 * that an exposure recorded since shows in use. The sweeper judges it again on its own. A config
 * whose entry the bounded last-seen index evicted counts as exposed at its watermark (the worker
 * reads it as `lastExposure`, src/state/request-state.ts): it may have been, so it is not archived.
 */
export const exposedSince: Step = (context, input) => {
  const { policy, requestedAt, when, result } = context;
  const { request, lastExposure } = input;
  if (request.action !== 'archive_config' || request.requestedBy.source !== 'schedule') return undefined;
  const unasked = sweepNoLongerAsks(context, request);
  if (unasked) return unasked;
  const window = (policy.sweeper.staleConfigs?.staleAfterDays ?? 0) * 24 * HOUR;
  if (lastExposure !== undefined && lastExposure > requestedAt - window)
    return result(
      'deny',
      'sweeper.staleConfigs',
      `config ${request.configId} has an exposure recorded at ${when(lastExposure)} (or, its own entry evicted ` +
        'from the bounded last-seen index, may have been exposed as late as that), after the stale sweep of ' +
        `${when(requestedAt)} judged it unused; it is not archived (the sweeper judges it again)`,
    );
  return unreadSince(context, request, input.eventsReadUpTo);
};

/** How recently the sweeper must have read the event log for a sweep's archive to run. */
export const EVENTS_READ_WITHIN_MS = HOUR;
/** How often an archive waiting for the sweeper to read is looked at again. */
const UNREAD_RECHECK_MS = 15 * 60_000;

/**
 * The exposure check knows only what the sweeper has read: a sweep's archive executed later
 * (held, say, to the next day) while the sweeper could not read the log would archive a config
 * exposed meanwhile. So it waits until the sweeper has read up to within the last hour, with both
 * its walks (`readUpTo` is written once the late-exposure walk has caught up too: src/sweeper/sweeper.ts)
 * (`undefined`: not known to this decision, e.g. an audit record from before it was kept).
 */
function unreadSince(
  { now, when, result }: Context,
  request: ArchiveConfigRequest,
  readUpTo: number | null | undefined,
): Decision | undefined {
  if (request.requestedBy.id !== STALE_SWEEP_ID || readUpTo === undefined) return undefined;
  // A time ahead of the clock was written by a run at a future time (a test event naming 2030,
  // before the sweeper refused those): it passed this check until then, however long the sweeper
  // has not read since. It says nothing about how far the log is read: it counts as not read.
  const ahead = readUpTo !== null && aheadOf(readUpTo, now);
  if (readUpTo !== null && !ahead && readUpTo >= now - EVENTS_READ_WITHIN_MS) return undefined;
  const since =
    readUpTo === null
      ? 'has not read the event log yet'
      : ahead
        ? `says it read the event log up to ${when(readUpTo)}, a time ahead of the clock (written by a run at a ` +
          'future time): how far it has read is unknown until its next run that judges stale configs'
        : `last read the event log up to ${when(readUpTo)}`;
  return result(
    'defer',
    'sweeper.staleConfigs',
    `the sweeper ${since} (exposures logged late included): exposures of config ${request.configId} since then are unknown, so it is not ` +
      'archived until the sweeper has read up to the last hour (see SweeperLagging and SweeperErrors)',
    { deferUntil: new Date(now + UNREAD_RECHECK_MS) },
  );
}

/** The requester id of the stale sweep's archives (`schedule:stale-config-sweep`; only the sweeper may send `schedule`). */
export const STALE_SWEEP_ID = 'stale-config-sweep';

/**
 * What follows a denial of the sweep's archive that no person made (its expiry): the sweeper asks
 * again by itself a day after it while the config stays unexposed (ASK_AGAIN_AFTER_DENIAL_MS,
 * src/sweeper/stale.ts), so "send a new request" would be wrong. Undefined for other requests.
 */
export function sweepAsksAgain(request: ActionRequest): string | undefined {
  if (request.action !== 'archive_config' || request.requestedBy.source !== 'schedule') return undefined;
  if (request.requestedBy.id !== STALE_SWEEP_ID) return undefined;
  return (
    `the stale-config sweep asks for it again by itself a day after this denial while config ${request.configId} ` +
    'stays unexposed; to stop it, add the config to actions.archive_config.protect'
  );
}

/**
 * A stale sweep's archive executed later (held) is the sweep's, under the policy deployed now: a
 * sweep turned off, or a config taken out of `configs` with `discover` off (the sweeper no
 * longer judges it), does not archive it.
 */
function sweepNoLongerAsks({ policy, result }: Context, request: ArchiveConfigRequest): Decision | undefined {
  if (request.requestedBy.id !== STALE_SWEEP_ID) return undefined;
  const stale = policy.sweeper.staleConfigs;
  if (stale && (stale.discover || stale.configs.includes(request.configId))) return undefined;
  const why = stale
    ? `config ${request.configId} is no longer in sweeper.staleConfigs.configs (and discover is off)`
    : 'the stale-config sweep is off (no sweeper.staleConfigs in the policy)';
  return result('deny', 'sweeper.staleConfigs', `${why}: the sweep's archive of it is not executed`);
}
