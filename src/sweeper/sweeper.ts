/**
 * The sweeper: one scheduled run reads the new logged events, applies the event rules
 * (enqueue action requests, notify the channel), keeps the last-seen index and the watch set,
 * then judges stale configs and queues their archiving. It never mutates the Console API.
 *
 * Durability: events are handled in flushes (every `flushEvery` new events and at the end).
 * A flush makes its effects durable in this order — requests enqueued, notifications posted
 * and marked, last-seen written, watch set written — and only then saves the cursor. A crash
 * anywhere replays at most the last flush on the next run: requests carry deterministic ids
 * (the worker drops copies), last-seen keeps the maximum, posted notifications are marked.
 * So a crash can re-send, never lose.
 */
import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RequesterSigner } from '../actions/proof.js';
import type { ActionRequest } from '../actions/request.js';
import { actionRequestSchemas } from '../actions/request.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { type Metrics, noMetrics } from '../observability/metrics.js';
import type { Policy } from '../policy/schema.js';
import { sendActionRequest } from '../queue/actions-queue.js';
import { type PostResult, postToSlack, type SlackMessage } from '../slack/post.js';
import { loadLastSeen, mergeMax, writeLastSeen } from '../state/last-seen.js';
import { markPosted, postedAlready } from '../state/notify-marks.js';
import { type PauseState, readPause } from '../state/pause.js';
import { type Cursor, readCursor, writeCursor } from '../state/sweep-cursor.js';
import { acquireLease, releaseLease } from '../state/sweep-lease.js';
import type { StateTable } from '../state/table.js';
import { loadWatchSet, type WatchEntry, writeWatchEntries } from '../state/watch.js';
import { globMatch } from '../util/glob.js';
import { forEachBounded } from '../util/pool.js';
import { eventField } from './event-fields.js';
import { buildRuleRequest, ruleMatches, ruleNotification, ruleRequestId } from './event-rules.js';
import type { NewEvent } from './event-walk.js';
import { shortHash } from './identity.js';
import { createPoller, type PollEnd, type PolledPage } from './poller.js';
import { planStaleSweep, type StalePlan } from './stale.js';
import { compactSummary, type RunSummary, staleNotification, staleSection } from './summary.js';
import type { EventsSource, SweeperHooks, SweeperStep } from './types.js';

export interface SweeperDeps {
  policy: Policy;
  events: EventsSource;
  table: StateTable;
  sqs: Pick<SQSClient, 'send'>;
  queueUrl: string;
  /** Vouches for the `events` and `schedule` requests the sweeper queues (src/actions/proof.ts). */
  signer?: RequesterSigner;
  /** The notifications channel's incoming-webhook URL (a secret: `slackWebhookUrl`), read at each run. */
  channelUrl?: () => Promise<string | undefined>;
  /** Posts to Slack; default `postToSlack` with `slackAllowedOrigins`. */
  post?: (url: string, message: SlackMessage) => Promise<PostResult>;
  slackAllowedOrigins?: readonly string[];
  logger?: Logger;
  /** EMF metrics: events read, lag, stale configs, failed Slack posts. */
  metrics?: Metrics;
  /** `limit` asked of GET /events (the API may apply less; the sandbox caps at 1000). Default 1000. */
  pageSize?: number;
  /** Stop starting work this long before the deadline. Default 10 s. */
  safetyMarginMs?: number;
  /** New events per flush (effects made durable, cursor saved). Default 1000. */
  flushEvery?: number;
  /** Event rules ignore events older than this when they are first read (a first run reads months of history). Default 24 h. */
  ruleMaxAgeMs?: number;
  /** Parallel SendMessage calls. Default 8. */
  sendConcurrency?: number;
  hooks?: SweeperHooks;
  /** Wall clock for deadlines and the lease. */
  clock?: () => number;
  readPause?: (table: StateTable) => Promise<PauseState>;
}

export interface RunInput {
  /** Business time: requestedAt, staleness, grace. Default: the wall clock. */
  now?: Date;
  /** Time left for this invocation (Lambda: `context.getRemainingTimeInMillis`). Default 15 min. */
  remainingMs?: number | (() => number);
}

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
  const exposureSpecs = stalePolicy?.exposureEvents ?? [];
  // From the secret at the start of each run (rotation); the policy's deprecated field otherwise.
  let slackUrl = policy.notifications.slackWebhookUrl;
  const step = async (name: SweeperStep, detail: Record<string, unknown> = {}) => {
    await deps.hooks?.onStep?.(name, detail);
  };

  async function run(input: RunInput = {}): Promise<RunSummary> {
    const started = clock();
    slackUrl = await (deps.channelUrl?.() ?? Promise.resolve(undefined)).then(
      (url) => url || policy.notifications.slackWebhookUrl,
      (error: unknown) => {
        logger.warn('the notifications URL cannot be read; nothing is posted this run', { error });
        return undefined;
      },
    );
    const now = input.now ?? new Date(started);
    const remaining =
      typeof input.remainingMs === 'function' ? input.remainingMs() : (input.remainingMs ?? 15 * 60_000);
    const deadline = started + remaining - (deps.safetyMarginMs ?? 10_000);
    const summary: RunSummary = {
      runAt: now.toISOString(),
      partial: false,
      stop: 'done',
      paused: false,
      events: {
        order: 'unknown',
        requests: 0,
        pagesRead: 0,
        eventsRead: 0,
        newEvents: 0,
        caughtUp: false,
        flushes: 0,
      },
      rules: {
        enqueued: 0,
        notified: 0,
        notifySkipped: 0,
        notifyFailed: 0,
        tooOld: 0,
        skipped: 0,
        skippedExamples: [],
      },
      lastSeen: { updated: 0, tracked: 0 },
      watch: { added: 0, size: 0 },
      stale: staleSection(undefined),
      durationMs: 0,
    };
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
    const cursor = await readCursor(table);
    const [watch, lastSeen] = await Promise.all([loadWatchSet(table), loadLastSeen(table)]);

    // Policy configs join the watch set the first time we see them in the policy.
    let pendingWatch: WatchEntry[] = [];
    for (const configId of stalePolicy?.configs ?? []) {
      if (!watch.has(configId))
        pendingWatch.push({ configId, watchedSince: now.getTime(), origin: 'policy' });
    }

    const poller = createPoller({
      events: deps.events,
      pageSize: deps.pageSize ?? 1000,
      order: policy.sweeper.eventOrder,
      cursor,
      deadline,
      clock,
      logger,
    });
    let pending: NewEvent[] = [];
    let pendingCursor: Cursor | undefined;
    let latestCursor: Cursor | undefined = cursor;

    const flush = async () => {
      if (!pendingCursor && pendingWatch.length === 0) return;
      const events = pending;
      const cursorAfter = pendingCursor;
      pending = [];
      pendingCursor = undefined;
      summary.events.flushes++;
      await flushEvents(events, now, summary, watch, lastSeen, pendingWatch);
      pendingWatch = [];
      if (cursorAfter) {
        await writeCursor(table, cursorAfter, now);
        await step('cursor', { position: cursorAfter.position, boundaryTs: cursorAfter.boundaryTs });
      }
    };

    const pages = poller.pages();
    let end: PollEnd | undefined;
    let pollError: unknown;
    for (;;) {
      let result: IteratorResult<PolledPage, PollEnd>;
      try {
        result = await pages.next();
      } catch (error) {
        pollError = error;
        break;
      }
      if (result.done) {
        end = result.value;
        break;
      }
      const page = result.value;
      summary.events.newEvents += page.newEvents.length;
      pending.push(...page.newEvents);
      pendingCursor = page.cursor;
      latestCursor = page.cursor;
      await step('page', { page: page.page, newEvents: page.newEvents.length });
      if (pending.length >= (deps.flushEvery ?? 1000)) await flush();
    }
    // Whatever was read before a failure is consistent: make it durable before reporting.
    await flush();
    Object.assign(summary.events, {
      order: poller.stats.order,
      requests: poller.stats.requests,
      pagesRead: poller.stats.pagesRead,
      eventsRead: poller.stats.eventsRead,
      caughtUp: end?.caughtUp ?? false,
    });
    summary.lastSeen.tracked = lastSeen.size;
    summary.watch.size = watch.size;
    if (pollError) {
      summary.partial = true;
      summary.stop = 'error';
      summary.error = (pollError as Error).message;
      logger.error('reading events failed; progress up to the last page read is saved', { error: pollError });
    } else if (end && !end.caughtUp) {
      summary.partial = true;
      summary.stop = end.stop === 'max-pages' ? 'max-pages' : 'time';
    }

    if (stalePolicy) {
      if (!summary.events.caughtUp) {
        // Judging staleness from a half-read log would call configs stale that were exposed
        // in the part not read yet.
        summary.stale = staleSection(undefined, 'the event log is not read up to now yet');
      } else {
        const plan = planStaleSweep({
          policy: stalePolicy,
          protect: policy.actions.archive_config?.protect ?? [],
          now,
          observedSince: latestCursor?.observedSince ?? null,
          watch,
          lastSeen,
          paused: pause.paused,
        });
        await queueStale(plan, now, watch);
        summary.stale = staleSection(plan);
      }
    }

    summary.durationMs = clock() - started;
    report(summary, now, latestCursor);
    await postStaleSummary(summary, now);
  }

  async function send(requests: ActionRequest[]): Promise<void> {
    await forEachBounded(requests, deps.sendConcurrency ?? 8, async (request) => {
      await sendActionRequest(deps.sqs, deps.queueUrl, request, deps.signer ? { signer: deps.signer } : {});
    });
  }

  async function flushEvents(
    events: NewEvent[],
    now: Date,
    summary: RunSummary,
    watch: Map<string, WatchEntry>,
    lastSeen: Map<string, number>,
    pendingWatch: WatchEntry[],
  ): Promise<void> {
    const toSend: ActionRequest[] = [];
    const toNotify: Array<{ key: string; text: string }> = [];
    const observed = new Map<string, number>();
    const discovered = new Map<string, WatchEntry>();
    const oldest = now.getTime() - (deps.ruleMaxAgeMs ?? DAY);

    for (const { event, id, ts } of events) {
      for (const rule of policy.sweeper.eventRules) {
        if (!ruleMatches(rule, event)) continue;
        if (ts < oldest) {
          summary.rules.tooOld++;
          continue;
        }
        if (rule.enqueue) {
          const built = buildRuleRequest(rule, event, id, now);
          if (built.ok) toSend.push(built.request);
          else {
            summary.rules.skipped++;
            if (summary.rules.skippedExamples.length < 10)
              summary.rules.skippedExamples.push({ rule: rule.name, event: id, reason: built.reason });
            logger.warn('event rule skipped an event', {
              rule: rule.name,
              event: id,
              name: event.name,
              reason: built.reason,
            });
          }
        }
        if (rule.notify)
          toNotify.push({ key: ruleRequestId(rule.name, id), text: ruleNotification(rule, event) });
      }
      for (const spec of exposureSpecs) {
        if (!globMatch(spec.name, event.name)) continue;
        const configId = eventField(event, spec.configIdFrom);
        if (configId === undefined || configId === '' || Number.isNaN(ts)) continue;
        observed.set(configId, Math.max(observed.get(configId) ?? ts, ts));
        if (stalePolicy?.discover && !watch.has(configId) && !discovered.has(configId)) {
          if (actionRequestSchemas().identifier.safeParse(configId).success)
            discovered.set(configId, { configId, watchedSince: now.getTime(), origin: 'discovered' });
          else logger.warn('exposure names a config id we cannot archive; not watching it', { event: id });
        }
      }
    }

    await send(toSend);
    summary.rules.enqueued += toSend.length;
    await step('enqueue', { requestIds: toSend.map((r) => r.requestId) });

    const posted: string[] = [];
    if (toNotify.length > 0) {
      if (!slackUrl) {
        summary.rules.notifySkipped += toNotify.length;
        logger.info('event rules asked to notify, but no notifications channel (slackWebhookUrl) is set', {
          count: toNotify.length,
        });
      } else {
        const already = await postedAlready(
          table,
          toNotify.map((n) => n.key),
        );
        for (const note of toNotify) {
          if (already.has(note.key)) continue;
          const result = await post(slackUrl, { text: note.text });
          if (result.ok) {
            posted.push(note.key);
            summary.rules.notified++;
          } else {
            // Notifications are informational: a Slack outage must not hold back the approvals
            // that ride on the same events, so a failed post is logged and counted, not retried.
            summary.rules.notifyFailed++;
            metrics.put('SlackPostsFailed', 1, {});
            logger.error('cannot post an event notification', {
              key: note.key,
              reason: result.reason,
              error: result.error,
            });
          }
        }
      }
    }
    await step('notify', { posted });
    if (posted.length > 0) await markPosted(table, posted, now);
    await step('notify-marks', { posted });

    const grown = mergeMax(lastSeen, observed);
    if (grown.size > 0) await writeLastSeen(table, grown, now);
    summary.lastSeen.updated += grown.size;
    await step('last-seen', { updated: Object.fromEntries(grown) });

    const newWatch = [
      ...new Map([...discovered, ...pendingWatch.map((e) => [e.configId, e] as const)]).values(),
    ];
    if (newWatch.length > 0) await writeWatchEntries(table, newWatch);
    for (const entry of newWatch) watch.set(entry.configId, entry);
    summary.watch.added += newWatch.length;
    await step('watch', { added: newWatch.map((e) => e.configId) });
  }

  async function queueStale(plan: StalePlan, now: Date, watch: Map<string, WatchEntry>): Promise<void> {
    await send(plan.queue);
    await step('stale-enqueue', { requestIds: plan.queue.map((r) => r.requestId) });
    const marked: WatchEntry[] = [];
    for (const request of plan.queue) {
      const entry = watch.get(request.configId);
      if (!entry) continue;
      const updated = { ...entry, archiveRequestId: request.requestId, archiveQueuedAt: now.getTime() };
      watch.set(request.configId, updated);
      marked.push(updated);
    }
    if (marked.length > 0) await writeWatchEntries(table, marked);
    await step('stale-marks', { marked: marked.map((e) => e.configId) });
  }

  /** The run's summary: always one log line, and its metrics. */
  function report(summary: RunSummary, now: Date, cursor: Cursor | undefined): void {
    logger.info('sweeper run summary', { summary: compactSummary(summary) });
    const newestAge =
      cursor?.boundaryTs == null ? undefined : Math.max(0, (now.getTime() - cursor.boundaryTs) / 1000);
    const properties = { runAt: summary.runAt, stop: summary.stop };
    metrics.put('EventsRead', summary.events.eventsRead, {}, properties);
    if (newestAge !== undefined) metrics.put('NewestEventAge', newestAge, {}, properties);
    // Read up to now: not behind, however old the newest event is (a quiet log is not lag).
    if (summary.events.caughtUp) metrics.put('SweeperLag', 0, {}, properties);
    else if (newestAge !== undefined) metrics.put('SweeperLag', newestAge, {}, properties);
    if (summary.stale.judged) {
      metrics.put('StaleConfigsFound', summary.stale.stale.length, {}, properties);
      metrics.put('StaleConfigsQueued', summary.stale.queued.length, {}, properties);
    }
  }

  /** A channel post when something is stale and the text differs from the last one posted (an hourly schedule must not repeat itself hourly). */
  async function postStaleSummary(summary: RunSummary, now: Date): Promise<void> {
    if (summary.stale.stale.length > 0 && slackUrl) {
      const text = staleNotification(summary);
      const key = `summary:${shortHash(text, 24)}`;
      if (!(await postedAlready(table, [key])).has(key)) {
        const result = await post(slackUrl, { text });
        if (result.ok) await markPosted(table, [key], now);
        else {
          metrics.put('SlackPostsFailed', 1, {});
          logger.error('cannot post the sweep summary', { reason: result.reason, error: result.error });
        }
      }
    }
    await step('summary', {});
  }

  return { run };
}

export type Sweeper = ReturnType<typeof createSweeper>;
