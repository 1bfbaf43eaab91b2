/**
 * Exposures logged late. Client SDKs batch and retry, and the platform keeps an event at the time
 * the client stamped it: one that reaches the log more than the lookback (15 minutes, at most a
 * page of events: src/sweeper/recent.ts) behind the newest event read lands behind the cursor,
 * and the sweeper's walk never reads it. `GET /events` offers no arrival order or time filter to
 * find it by (spec 4.6: `limit` and `page` only), and the lookback's identities must fit one
 * item, so the lookback cannot simply grow. Instead a second walk of the log, with its own
 * cursor, reads `LATE_EXPOSURE_BOUND_MS` behind the run's time: by then an exposure logged up to
 * that late is in the log, and it records it in the last-seen index (a maximum: reading an
 * exposure twice changes nothing). It applies no event rules (those act on fresh events); it
 * costs a second read of each event, O(new events) per run like the first.
 */
import type { Logger } from '../observability/logger.js';
import type { Policy } from '../policy/schema.js';
import { recordExposures } from '../state/last-seen.js';
import {
  type Cursor,
  EMPTY_CURSOR,
  readCursor,
  recordingEpisode,
  writeCursor,
} from '../state/sweep-cursor.js';
import type { StateTable } from '../state/table.js';
import { reading } from './event-walk.js';
import { planFlush } from './flush-plan.js';
import { createPoller } from './poller.js';
import { LOOKBACK_MS } from './recent.js';
import type { EventState, EventsSource } from './types.js';
import { watchDiscovered } from './watch-discovered.js';

/** How late (behind the run's time) an exposure may be logged and still be recorded. */
export const LATE_EXPOSURE_BOUND_MS = 6 * 3_600_000;
/** Why nothing is judged stale while the late walk is behind (a first run reads the whole log). */
export const LATE_UNREAD = 'exposures logged late are not read up to 6 hours ago yet';

/** What events the late walk passes unread (expired, or lacking from a short page) mean for it. */
const LATE_PASSED_UNREAD =
  'exposures logged late among the events passed unread are not recorded (when observation starts is the sweeper walk’s, unchanged)';

export interface LateExposureDeps {
  policy: Policy;
  events: EventsSource;
  table: StateTable;
  pageSize: number;
  clock: () => number;
  logger: Logger;
}

/**
 * Reads the log from the late walk's cursor up to `LATE_EXPOSURE_BOUND_MS` before `now`, recording
 * exposures (and configs discovery adds) page by page, then its cursor. True when it got there.
 * A walk that did not is a partial run, and one that failed fails the run as a failed read of the
 * log does (the handler throws: SweeperErrors): SweeperLag reads 0 once the sweeper's own walk has
 * caught up, so a late walk failing on every run would keep the stale sweep off with nobody told.
 */
export async function readLateExposures(
  deps: LateExposureDeps,
  state: EventState & {
    /** The sweeper's cursor after this run's read: where a first late walk starts from. */
    latest: Cursor | undefined;
  },
): Promise<boolean> {
  const { table } = deps;
  const { now } = state;
  const until = now.getTime() - LATE_EXPOSURE_BOUND_MS;
  // Its lines are told apart from the sweeper's walk, whose poller logs the same events.
  const logger = deps.logger.child({ walk: 'late-exposures' });
  const poller = createPoller({
    events: deps.events,
    pageSize: deps.pageSize,
    order: deps.policy.sweeper.eventOrder,
    cursor: await startCursor(table, state.latest, until),
    deadline: state.deadline,
    now: now.getTime(),
    until,
    clock: deps.clock,
    // Events this walk passes unread lose only the late exposures among them: observation starts
    // where the sweeper's walk says (src/sweeper/observation.ts), never here.
    passedUnread: LATE_PASSED_UNREAD,
    logger,
  });
  // Exposures only: the event rules acted on these events when the sweeper's walk read them.
  const policy = { ...deps.policy, sweeper: { ...deps.policy.sweeper, eventRules: [] } };
  const listed = new Set(deps.policy.sweeper.staleConfigs?.configs ?? []);
  const read = reading(poller.pages());
  for await (const page of read.pages) {
    // Listed by arrival, an exposure logged late is listed after later ones: older than the
    // window by the time this walk reads it, it comes as `late` (src/sweeper/event-walk.ts).
    const events = [...page.newEvents, ...page.late];
    const plan = planFlush({ events, policy, watch: state.watch, now, ruleMaxAgeMs: 0 });
    await recordExposures(table, state.lastSeen, plan.observed, now);
    // The sweeper walk's rule: it re-reads the ids the index bound dropped, which are not watched.
    const watched = await watchDiscovered(table, state, plan.discovered, listed);
    state.summary.watch.added += watched.added.length;
    state.summary.watch.forgotten += watched.forgotten;
    await writeCursor(table, page.cursor, now, 'late-exposures');
  }
  const { end } = read;
  const { summary } = state;
  summary.watch.size = state.watch.size;
  if (!end.caughtUp) summary.partial = true;
  if (end.stop === 'error') {
    summary.stop = 'error';
    summary.error = `reading late exposures: ${(end.error as Error).message}`;
    logger.error('reading late exposures failed; progress up to the last page read is saved', {
      error: end.error,
    });
  } else if (!end.caughtUp) summary.stop = end.stop;
  return end.caughtUp;
}

/**
 * Where this run's late walk starts, stamped with the sweeper cursor's recording episode. A late
 * cursor left by an earlier episode (the sweep turned off and on again, or its exposureEvents
 * changed: the same test as StaleJudgementAge's) is set aside: resuming it would re-read all that
 * was logged while the sweep was off, months maybe, before judging again. One stored before late
 * cursors carried their episode is resumed (it cannot tell, and it is where the walk stands).
 */
async function startCursor(table: StateTable, latest: Cursor | undefined, until: number): Promise<Cursor> {
  const episode = { exposureSettings: latest?.exposureSettings, recordingSince: latest?.recordingSince };
  const stored = await readCursor(table, 'late-exposures');
  const resumed =
    stored &&
    (stored.exposureSettings === undefined || recordingEpisode(stored) === recordingEpisode(episode));
  return { ...((resumed ? stored : firstLateCursor(latest, until)) ?? EMPTY_CURSOR), ...episode };
}

/**
 * The first late walk of an episode (the sweep just turned on, or an upgrade) starts at the bound, not at the
 * log's start: the sweeper's walk has read everything before on time (a second read of months
 * of history would double a first run). Its position is a guide: the walk steps back from there
 * to the first page before the floor.
 */
function firstLateCursor(latest: Cursor | undefined, until: number): Cursor | undefined {
  if (!latest || latest.boundaryTs === null) return undefined;
  return {
    ...EMPTY_CURSOR,
    order: latest.order,
    position: latest.position,
    pageSize: latest.pageSize,
    totalItems: latest.totalItems,
    boundaryTs: until,
    floorTs: until - LOOKBACK_MS,
    recent: {},
  };
}
