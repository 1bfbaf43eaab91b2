/**
 * The sweeper: one scheduled run reads the new logged events, applies the event rules
 * (enqueue action requests, notify the channel), keeps the last-seen index and the watch set,
 * then judges stale configs and queues their archiving. It never mutates the Console API.
 *
 * Durability: events are handled in flushes (every `flushEvery` new events and at the end).
 * A flush makes its effects durable in this order — requests over a rule's cap marked (never
 * queued: src/sweeper/request-cap.ts), requests enqueued, notifications posted
 * and marked, last-seen written, watch set written — and only then saves the cursor. A crash
 * anywhere replays at most the last flush on the next run: requests carry deterministic ids
 * (the worker drops copies), last-seen keeps the maximum, posted notifications are marked.
 * So a crash can re-send, never lose.
 */
import { randomUUID } from 'node:crypto';
import type { ActionRequest } from '../actions/request.js';
import { createLogger } from '../observability/logger.js';
import { noMetrics } from '../observability/metrics.js';
import type { Policy } from '../policy/schema.js';
import { postToSlack, type SlackMessage } from '../slack/post.js';
import { readFinals } from '../state/audit.js';
import { loadLastSeenIndex, recordExposures } from '../state/last-seen.js';
import { markPosted } from '../state/notify-marks.js';
import { type PauseState, readPause } from '../state/pause.js';
import { notJudgedSince } from '../state/stale-judged.js';
import { type Cursor, readCursor, writeCursor, writeReadUpTo } from '../state/sweep-cursor.js';
import { acquireLease, releaseLease } from '../state/sweep-lease.js';
import { forgetEvicted, loadWatchSet, type WatchEntry } from '../state/watch.js';
import { type NewEvent, reading } from './event-walk.js';
import { planFlush } from './flush-plan.js';
import { foldIndexForms } from './fold-index.js';
import { skipLateCopy, withoutFutureTimes } from './late-copy.js';
import { LATE_UNREAD, readLateExposures } from './late-exposures.js';
import { channelUrlForRun, createNotices } from './notices.js';
import { observationStart, withRecording } from './observation.js';
import { createPoller } from './poller.js';
import { createRequestCap } from './request-cap.js';
import { sendRequests } from './send.js';
import { earlierAsks, planStaleSweep } from './stale.js';
import { queueStale } from './stale-queue.js';
import {
  emptySummary,
  indexCutShort,
  indexFigures,
  type RunSummary,
  reportRun,
  reportSkips,
  staleSection,
} from './summary.js';
import type { EventState, RunInput, SweeperDeps, SweeperStep } from './types.js';
import { watchDiscovered } from './watch-discovered.js';

const DAY = 86_400_000;

export function createSweeper(deps: SweeperDeps) {
  const logger = deps.logger ?? createLogger({ service: 'sweeper' });
  const metrics = deps.metrics ?? noMetrics;
  const clock = deps.clock ?? Date.now;
  const post =
    deps.post ??
    ((url: string, message: SlackMessage) =>
      postToSlack(url, message, { allowedOrigins: deps.slackAllowedOrigins ?? [] }));
  const { policy, table } = deps;
  const stalePolicy = policy.sweeper.staleConfigs;
  const listedConfigs = new Set(stalePolicy?.configs ?? []);
  // From the secret at the start of each run (rotation); the policy's deprecated field otherwise.
  let slackUrl = policy.notifications.slackWebhookUrl;
  const notices = createNotices({ table, post, metrics, logger, clock });
  const requestCap = createRequestCap({ table, post, metrics, logger, clock });
  const step = async (name: SweeperStep, detail: Record<string, unknown> = {}) => {
    await deps.hooks?.onStep?.(name, detail);
  };

  async function run(input: RunInput = {}): Promise<RunSummary> {
    const started = clock();
    slackUrl = await channelUrlForRun(deps.channelUrl, policy.notifications.slackWebhookUrl, logger);
    const now = input.now ?? new Date(started);
    const remaining =
      typeof input.remainingMs === 'function' ? input.remainingMs() : (input.remainingMs ?? 15 * 60_000);
    const deadline = started + remaining - (deps.safetyMarginMs ?? 10_000);
    const summary = emptySummary(now);
    const owner = randomUUID();
    if (!(await acquireLease(table, owner, clock(), started + remaining))) {
      summary.partial = true;
      summary.stop = 'leased';
      logger.warn('another sweeper run holds the lease; skipping this run');
      return summary;
    }
    try {
      await sweep(now, deadline, summary, started);
    } finally {
      await releaseLease(table, owner).catch((error) => logger.warn('cannot release the lease', { error }));
    }
    return summary;
  }

  async function sweep(now: Date, deadline: number, summary: RunSummary, started: number): Promise<void> {
    const pause = await (deps.readPause ?? readPause)(table);
    summary.paused = pause.paused;
    const stored = await readCursor(table);
    if (skipLateCopy(stored, now, clock(), summary, logger)) return;
    const cursor = withRecording(withoutFutureTimes(stored, clock()), stalePolicy);
    // An old index is cut down as it loads, up to the deadline: stopped there, it is only part of
    // the stored one, and nothing is recorded, forgotten or judged from it (the run ends).
    const [watch, lastSeen] = await Promise.all([
      loadWatchSet(table, clock()),
      loadLastSeenIndex(table, now, deps.lastSeenMaxIds, { deadline, clock }),
    ]);
    let latest: Cursor | undefined = cursor;
    if (!lastSeen.complete) indexCutShort(summary, lastSeen, watch.size, logger);
    else {
      summary.watch.forgotten += await forgetEvicted(table, watch, lastSeen.entries, listedConfigs);
      latest = await readEvents({ now, deadline, summary, cursor, watch, lastSeen });
      const observedSince = observationStart(latest);
      const state = { now, summary, watch, lastSeen, observedSince, pause, deadline, latest };
      if (stalePolicy) await judgeStale(stalePolicy, state);
    }
    if (stalePolicy) {
      const since = await notJudgedSince(table, { judged: summary.stale.judged, now, cursor });
      if (since !== null) summary.stale.notJudgedSince = new Date(since).toISOString();
    }
    summary.lastSeen = { ...summary.lastSeen, ...indexFigures(lastSeen) };
    summary.durationMs = clock() - started;
    reportRun(summary, now, latest, { logger, metrics });
    const end = deadline + (deps.safetyMarginMs ?? 10_000);
    await notices.postCapped(slackUrl, summary, end);
    await requestCap.postCapped(slackUrl, summary, end);
    await notices.postStaleSummary(slackUrl, summary, now);
    await step('summary', {});
  }

  /**
   * Reads the new events and applies the event rules, flush by flush; returns the cursor after
   * the last page read. Whatever was read before a failure is consistent, so it is made durable
   * before the failure is reported.
   */
  async function readEvents(input: EventState & { cursor: Cursor | undefined }): Promise<Cursor | undefined> {
    const { now, summary } = input;
    const poller = createPoller({
      events: deps.events,
      pageSize: deps.pageSize ?? 1000,
      order: policy.sweeper.eventOrder,
      cursor: input.cursor,
      deadline: input.deadline,
      now: now.getTime(),
      clock,
      logger,
    });
    // Policy configs join the watch set the first time we see them in the policy.
    let pendingWatch: WatchEntry[] = (stalePolicy?.configs ?? [])
      .filter((configId) => !input.watch.has(configId))
      .map((configId) => ({ configId, watchedSince: now.getTime(), origin: 'policy' }));
    let pending: NewEvent[] = [];
    let pendingLate: NewEvent[] = [];
    let pendingCursor: Cursor | undefined;
    let latestCursor = input.cursor;

    const flush = async () => {
      if (!pendingCursor && pendingWatch.length === 0) return;
      const events = pending;
      const late = pendingLate;
      const cursorAfter = pendingCursor;
      const watchFromPolicy = pendingWatch;
      pending = [];
      pendingLate = [];
      pendingCursor = undefined;
      pendingWatch = [];
      summary.events.flushes++;
      await flushEvents(events, late, watchFromPolicy, input);
      if (cursorAfter) {
        await writeCursor(table, cursorAfter, now);
        await step('cursor', { position: cursorAfter.position, boundaryTs: cursorAfter.boundaryTs });
      }
    };

    const read = reading(poller.pages());
    for await (const page of read.pages) {
      summary.events.newEvents += page.newEvents.length;
      // Not `push(...)`: one argument per event overflows the stack on a page the platform serves
      // larger than asked (150,000 events), and every run would fail at that page.
      for (const event of page.newEvents) pending.push(event);
      for (const event of page.late) pendingLate.push(event); // for their exposures only
      pendingCursor = page.cursor;
      latestCursor = page.cursor;
      await step('page', { page: page.page, newEvents: page.newEvents.length });
      if (pending.length >= (deps.flushEvery ?? 1000)) await flush();
    }
    const { end } = read;
    // Read up to now: remembered, so that a later run that fails early knows how far behind it is.
    if (end.caughtUp && latestCursor) {
      latestCursor = { ...latestCursor, caughtUpAt: now.getTime() };
      pendingCursor = latestCursor;
    }
    await flush();
    const { rereads: _rereads, ...walked } = poller.stats; // all but rereads (not in the summary)
    Object.assign(summary.events, walked);
    summary.events.caughtUp = end.caughtUp;
    summary.watch.size = input.watch.size;
    if (end.stop === 'error') {
      summary.partial = true;
      summary.stop = 'error';
      summary.error = (end.error as Error).message;
      logger.error('reading events failed; progress up to the last page read is saved', { error: end.error });
    } else if (!end.caughtUp) {
      summary.partial = true;
      summary.stop = end.stop;
    }
    return latestCursor;
  }

  async function judgeStale(
    stale: NonNullable<Policy['sweeper']['staleConfigs']>,
    input: EventState & { observedSince: number | null; pause: PauseState; latest: Cursor | undefined },
  ): Promise<void> {
    // Judging staleness from a half-read log would call configs stale that were exposed in the
    // part not read yet (or logged late, behind the cursor: src/sweeper/late-exposures.ts).
    const late = { policy, events: deps.events, table, pageSize: deps.pageSize ?? 1000, clock, logger };
    const unread = !input.summary.events.caughtUp
      ? 'the event log is not read up to now yet'
      : !(await readLateExposures(late, input)) && LATE_UNREAD;
    if (unread) {
      input.summary.stale = staleSection(undefined, unread);
      return;
    }
    // Forms of a watched name recorded by earlier runs (before it was watched) are uses of it too.
    input.summary.lastSeen.updated += await foldIndexForms(
      table,
      input.lastSeen,
      input.watch.keys(),
      input.now,
    );
    // Once both walks' exposures are durable: the worker archives nothing whose exposures it lacks,
    // logged late too (a late walk failing on every run would leave held archives to run blind).
    await writeReadUpTo(table, input.now.getTime(), input.now);
    const plan = planStaleSweep({
      policy: stale,
      protect: policy.actions.archive_config?.protect ?? [],
      now: input.now,
      observedSince: input.observedSince,
      watch: input.watch,
      lastSeen: input.lastSeen.entries,
      evictedUpTo: input.lastSeen.evictedUpTo,
      paused: input.pause.paused,
      outcomes: await readFinals(
        table,
        earlierAsks(input.watch, input.lastSeen.entries, input.lastSeen.evictedUpTo),
      ),
      maxDeferHours: policy.approvals.maxDeferHours,
    });
    await queueStale({ table, send, step }, plan, input.now, input.watch);
    input.summary.stale = staleSection(plan);
  }

  const send = (requests: ActionRequest[]) => sendRequests(deps, logger, requests);

  /** Applies one flush's plan in the durable order: enqueue, notify, marks, last-seen, watch. */
  async function flushEvents(
    events: NewEvent[],
    late: NewEvent[],
    watchFromPolicy: WatchEntry[],
    state: EventState,
  ): Promise<void> {
    const { now, summary, watch, lastSeen } = state;
    const plan = planFlush({ events, late, policy, watch, now, ruleMaxAgeMs: deps.ruleMaxAgeMs ?? DAY });
    reportSkips(plan, summary, logger);

    // Past a rule's cap the requests are marked first, then the rest sent: a crash queues none of them.
    const toSend = await requestCap.admit(plan.toSend, summary, now);
    await send(toSend);
    summary.rules.enqueued += toSend.length;
    await step('enqueue', { requestIds: toSend.map((r) => r.requestId) });

    const posted = await notices.postNew(slackUrl, plan.toNotify, summary, state.deadline);
    await step('notify', { posted });
    if (posted.length > 0) await markPosted(table, posted, now);
    await step('notify-marks', { posted });

    const grown = await recordExposures(table, lastSeen, plan.observed, now);
    summary.lastSeen.updated += grown.size;
    await step('last-seen', { updated: Object.fromEntries(grown) });

    const { added, forgotten } = await watchDiscovered(
      table,
      { watch, lastSeen },
      plan.discovered,
      listedConfigs,
      watchFromPolicy,
    );
    summary.watch.added += added.length;
    summary.watch.forgotten += forgotten;
    await step('watch', { added });
  }

  return { run, clock };
}

export type Sweeper = ReturnType<typeof createSweeper>;
