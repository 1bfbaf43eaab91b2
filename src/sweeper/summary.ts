/**
 * The one summary a run produces: logged as a single JSON line, and posted to the channel
 * when something is stale (a run with nothing to say stays quiet in Slack).
 */
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { inlineCode } from '../slack/mrkdwn.js';
import type { LastSeenIndex } from '../state/last-seen.js';
import type { Cursor } from '../state/sweep-cursor.js';
import { type FlushPlan, withoutConfigIdReport } from './flush-plan.js';
import type { StalePlan } from './stale.js';

export interface RunSummary {
  runAt: string;
  /** True when the run stopped before it was done (time, an error, another run's lease, or a newer run already ran: src/sweeper/late-copy.ts). */
  partial: boolean;
  stop: 'done' | 'time' | 'max-pages' | 'error' | 'leased' | 'superseded';
  error?: string;
  paused: boolean;
  events: {
    order: string;
    requests: number;
    pagesRead: number;
    eventsRead: number;
    newEvents: number;
    caughtUp: boolean;
    flushes: number;
    /** Events listed after ones stamped later (by arrival); `tooLate`: beyond the lookback, no rule acted on them. */
    outOfOrder: number;
    tooLate: number;
    /** Of the events read, elements that are not records (null, a string, a list): nothing read them. */
    unreadableEvents: number;
  };
  rules: {
    enqueued: number;
    notified: number;
    notifySkipped: number;
    notifyFailed: number;
    /** Notices over a rule's per-run cap: not posted one by one, marked, summed up in one post. */
    notifyCapped: number;
    /** Requests over a rule's per-run cap: not queued, marked, summed up in one post (src/sweeper/request-cap.ts). */
    enqueueCapped: number;
    tooOld: number;
    skipped: number;
    /** The first few skips with their reasons (all are logged). */
    skippedExamples: Array<{ rule: string; event: string; reason: string }>;
  };
  /**
   * `withoutConfigId`: exposure events with nothing at their `configIdFrom` (`missingAt`: those paths).
   * `tracked` of at most `max` ids; `evicted` by this run, the newest of them ever last seen at
   * `evictedUpTo` (an absent id counts as seen then): clients log ids no config has.
   */
  lastSeen: {
    updated: number;
    tracked: number;
    max: number;
    evicted: number;
    evictedUpTo?: string;
    withoutConfigId: number;
    missingAt: string[];
  };
  /** `forgotten`: discovered entries dropped with their last-seen entry (src/state/watch.ts forgetEvicted). */
  watch: { added: number; size: number; forgotten: number };
  stale: {
    judged: boolean;
    notJudged?: string;
    /** When the stale sweep last judged (or first could not), while it does not: StaleJudgementAge. */
    notJudgedSince?: string;
    dryRun: boolean;
    stale: string[];
    queued: string[];
    wouldQueue: string[];
    skipped: Array<{ configId: string; reason: string; detail?: string }>;
  };
  durationMs: number;
}

/** The summary of a run that has not done anything yet. */
export function emptySummary(now: Date): RunSummary {
  return {
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
      outOfOrder: 0,
      tooLate: 0,
      unreadableEvents: 0,
    },
    rules: {
      enqueued: 0,
      notified: 0,
      notifySkipped: 0,
      notifyFailed: 0,
      notifyCapped: 0,
      enqueueCapped: 0,
      tooOld: 0,
      skipped: 0,
      skippedExamples: [],
    },
    lastSeen: { updated: 0, tracked: 0, max: 0, evicted: 0, withoutConfigId: 0, missingAt: [] },
    watch: { added: 0, size: 0, forgotten: 0 },
    stale: staleSection(undefined),
    durationMs: 0,
  };
}

export function staleSection(plan: StalePlan | undefined, notJudged?: string): RunSummary['stale'] {
  if (!plan)
    return {
      judged: false,
      ...(notJudged ? { notJudged } : {}),
      dryRun: false,
      stale: [],
      queued: [],
      wouldQueue: [],
      skipped: [],
    };
  return {
    judged: true,
    dryRun: plan.dryRun,
    stale: plan.stale.map((s) => s.configId),
    queued: plan.queue.map((r) => r.configId),
    wouldQueue: plan.wouldQueue,
    skipped: plan.skipped,
  };
}

/** What a flush's plan skipped, counted in the summary and logged: rule skips, unwatchable and id-less exposures. */
export function reportSkips(plan: FlushPlan, summary: RunSummary, logger: Logger): void {
  summary.rules.tooOld += plan.tooOld;
  summary.rules.skipped += plan.skipped.length;
  for (const skip of plan.skipped) {
    if (summary.rules.skippedExamples.length < 10)
      summary.rules.skippedExamples.push({ rule: skip.rule, event: skip.event, reason: skip.reason });
    logger.warn('event rule skipped an event', { ...skip });
  }
  for (const event of plan.unwatchable)
    logger.warn('exposure names a config id we cannot archive; not watching it', { event });
  const missing = withoutConfigIdReport(plan);
  if (missing) {
    summary.lastSeen.withoutConfigId += missing.count;
    summary.lastSeen.missingAt = [...new Set([...summary.lastSeen.missingAt, ...missing.paths])];
    logger.warn('exposure events without a config id: not recorded', { ...missing });
  }
}

/** The last-seen index's figures for the summary. */
export function indexFigures(index: LastSeenIndex) {
  const { entries, max, evicted, evictedUpTo } = index;
  return {
    tracked: entries.size,
    max,
    evicted,
    ...(evictedUpTo === null ? {} : { evictedUpTo: new Date(evictedUpTo).toISOString() }),
  };
}

/**
 * A run whose load of the last-seen index stopped at its deadline while cutting an old index down
 * (src/state/last-seen.ts): it read no event and judged nothing, and says so; the next runs go on.
 */
export function indexCutShort(
  summary: RunSummary,
  index: LastSeenIndex,
  watched: number,
  logger: Logger,
): void {
  summary.partial = true;
  summary.stop = 'time';
  summary.watch.size = watched;
  summary.stale = staleSection(undefined, 'the last-seen index is still being cut down to its bound');
  logger.warn(
    'the last-seen index is still being cut down to its bound: this run stopped at its deadline before ' +
      'reading events; the next runs go on from what it evicted',
    { evicted: index.evicted, max: index.max },
  );
}

/** Slack text for the stale sweep: counts first, then the names (bounded). */
export function staleNotification(summary: RunSummary): string {
  const s = summary.stale;
  // Discovered ids come from exposure events, which any client SDK writes: escaped, or an id
  // like `<!channel>` would ping the channel; invisible characters shown, or a zero-width space
  // passes an id off as another's and a bidi override turns the line around; each in a code span
  // of its own, or its `*`, `_`, `~` or backtick formatted the rest of the line (ours included).
  const list = (all: string[]) => {
    const ids = all.map((id) => inlineCode(id));
    return ids.length > 20 ? `${ids.slice(0, 20).join(', ')} … (+${ids.length - 20})` : ids.join(', ');
  };
  const lines = [
    `*Stale config sweep*${s.dryRun ? ' (dry run: nothing queued)' : ''}: ${s.stale.length} stale`,
  ];
  // Queued by this run or an earlier one reads the same: the channel learns what is in the queue,
  // and a rerun after a crash does not post a different text for the same state.
  const queued = [
    ...s.queued,
    ...s.skipped.filter((k) => k.reason === 'queued earlier').map((k) => k.configId),
  ].sort();
  if (queued.length) lines.push(`queued for archiving: ${list(queued)}`);
  if (s.wouldQueue.length) lines.push(`would queue: ${list(s.wouldQueue)}`);
  const byReason = new Map<string, string[]>();
  for (const skip of s.skipped) {
    // Configs taken out of the policy, or archived by the sweep, stay on the watch set: not news every run.
    if (['queued earlier', 'not in policy', 'archived'].includes(skip.reason)) continue;
    // Pushed in place: copying the list per config was quadratic (15 s for 50,000 skipped).
    const ids = byReason.get(skip.reason);
    if (ids) ids.push(skip.configId);
    else byReason.set(skip.reason, [skip.configId]);
  }
  for (const [reason, ids] of byReason) lines.push(`skipped (${reason}): ${list(ids)}`);
  if (byReason.has('no exposures recorded'))
    lines.push(
      ':warning: no exposure of any config was recorded within `staleAfterDays`: `staleConfigs.exposureEvents` ' +
        'most likely match nothing the SDKs log (event name, `configIdFrom`). Nothing is judged stale until they do.',
    );
  const missing = summary.lastSeen;
  if (missing.withoutConfigId > 0)
    lines.push(
      `:warning: ${missing.withoutConfigId} exposure event(s) read this run had no config id at ` +
        `${list(missing.missingAt)} (\`staleConfigs.exposureEvents[].configIdFrom\`): their exposures were not ` +
        'recorded, so a config in use may look stale. Check that path before archiving.',
    );
  return lines.join('\n');
}

/** The summary for the log line: lists cut to their first 20 entries, with counts by reason. */
export function compactSummary(summary: RunSummary): Record<string, unknown> {
  const cut = <T>(items: T[]) =>
    items.length > 20 ? [...items.slice(0, 20), `… +${items.length - 20}`] : items;
  const byReason: Record<string, number> = {};
  for (const skip of summary.stale.skipped) byReason[skip.reason] = (byReason[skip.reason] ?? 0) + 1;
  return {
    ...summary,
    stale: {
      ...summary.stale,
      stale: cut(summary.stale.stale),
      queued: cut(summary.stale.queued),
      wouldQueue: cut(summary.stale.wouldQueue),
      skipped: cut(summary.stale.skipped),
      skippedByReason: byReason,
    },
  };
}

/** The run's summary: always one log line, and its metrics (lag from the newest event the cursor passed). */
export function reportRun(
  summary: RunSummary,
  now: Date,
  cursor: Cursor | undefined,
  out: { logger: Logger; metrics: Metrics },
): void {
  out.logger.info('sweeper run summary', { summary: compactSummary(summary) });
  const { evicted, max, evictedUpTo } = summary.lastSeen;
  if (evicted > 0)
    out.logger.warn(
      'the last-seen index is at its bound: exposure events name more config ids than a project has configs ' +
        '(a client logs user or request ids at configIdFrom?); the ids seen longest ago were evicted, and a ' +
        'config without an entry counts as last seen at evictedUpTo, so the sweep archives none last used before it',
      { evicted, max, evictedUpTo },
    );
  const newestAge =
    cursor?.boundaryTs == null ? undefined : Math.max(0, (now.getTime() - cursor.boundaryTs) / 1000);
  const properties = { runAt: summary.runAt, stop: summary.stop };
  const { metrics } = out;
  metrics.put('EventsRead', summary.events.eventsRead, {}, properties);
  if (newestAge !== undefined) metrics.put('NewestEventAge', newestAge, {}, properties);
  // Read up to now: not behind, however old the newest event is (a quiet log is not lag). Short of
  // it, behind by the newest event's age, but never by more than since a run last read up to now.
  const sinceCaughtUp =
    cursor?.caughtUpAt == null ? undefined : Math.max(0, (now.getTime() - cursor.caughtUpAt) / 1000);
  if (summary.events.caughtUp) metrics.put('SweeperLag', 0, {}, properties);
  else if (newestAge !== undefined)
    metrics.put('SweeperLag', Math.min(newestAge, sinceCaughtUp ?? newestAge), {}, properties);
  // Every run, 0 unless the stale sweep is kept from judging: a late-exposure walk that never
  // catches up leaves SweeperLag at 0 and each run merely partial (StaleSweepNotJudging reads this).
  const notJudgedSince = summary.stale.notJudgedSince ? Date.parse(summary.stale.notJudgedSince) : undefined;
  const judgementAge =
    notJudgedSince === undefined ? 0 : Math.max(0, (now.getTime() - notJudgedSince) / 1000);
  metrics.put('StaleJudgementAge', judgementAge, {}, properties);
  if (summary.stale.judged) {
    metrics.put('StaleConfigsFound', summary.stale.stale.length, {}, properties);
    metrics.put('StaleConfigsQueued', summary.stale.queued.length, {}, properties);
  }
}
