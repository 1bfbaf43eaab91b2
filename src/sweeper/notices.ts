/**
 * What the sweeper posts to the notifications channel: event-rule notifications (each once,
 * marked in the state table) and the stale-config summary (only when its text changed since the
 * last post, so an hourly schedule does not repeat itself hourly). Posts are informational: a
 * failed one is logged and counted, never retried and never allowed to hold back a run.
 */
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { PostResult, SlackMessage } from '../slack/post.js';
import { lastSummaryPosted, markSummaryPosted, postedAlready } from '../state/notify-marks.js';
import type { StateTable } from '../state/table.js';
import type { FlushPlan } from './flush-plan.js';
import { shortHash } from './identity.js';
import { type RunSummary, staleNotification } from './summary.js';

/**
 * The channel's URL for a run: the secret's (read at each run, for rotation), else the policy's
 * deprecated field. A secret that cannot be read leaves the run without a channel, logged.
 */
export function channelUrlForRun(
  read: (() => Promise<string | undefined>) | undefined,
  fallback: string | undefined,
  logger: Logger,
): Promise<string | undefined> {
  return (read?.() ?? Promise.resolve(undefined)).then(
    (url) => url || fallback,
    (error: unknown) => {
      logger.warn('the notifications URL cannot be read; nothing is posted this run', { error });
      return undefined;
    },
  );
}

/** How long one post may take (postToSlack's timeout): none starts closer than this to the deadline. */
const POST_MS = 5_000;

export function createNotices(deps: {
  table: StateTable;
  post: (url: string, message: SlackMessage) => Promise<PostResult>;
  metrics: Metrics;
  logger: Logger;
  clock?: () => number;
}) {
  const { table, post, metrics, logger } = deps;
  const clock = deps.clock ?? Date.now;

  /**
   * Posts the notifications not posted before; returns the keys posted now (the caller marks them).
   * Posting stops at the run's `deadline`: one by one, a slow Slack (or a flood of matching events)
   * kept the run past its Lambda time, killed before its cursor was saved, every run again.
   */
  async function postNew(
    url: string | undefined,
    notes: FlushPlan['toNotify'],
    summary: RunSummary,
    deadline = Number.POSITIVE_INFINITY,
  ): Promise<string[]> {
    if (notes.length === 0) return [];
    if (!url) {
      summary.rules.notifySkipped += notes.length;
      logger.info('event rules asked to notify, but no notifications channel (slackWebhookUrl) is set', {
        count: notes.length,
      });
      return [];
    }
    const already = await postedAlready(
      table,
      notes.map((n) => n.key),
    );
    const posted: string[] = [];
    const fresh = notes.filter((n) => !already.has(n.key));
    for (const [index, note] of fresh.entries()) {
      if (clock() + POST_MS >= deadline) {
        summary.rules.notifySkipped += fresh.length - index;
        logger.warn('the run is at its deadline: event notifications not posted', {
          count: fresh.length - index,
          first: note.key,
        });
        break;
      }
      const result = await post(url, { text: note.text });
      if (result.ok) {
        posted.push(note.key);
        summary.rules.notified++;
        continue;
      }
      // A Slack outage must not hold back the approvals that ride on the same events.
      summary.rules.notifyFailed++;
      metrics.put('SlackPostsFailed', 1, {});
      logger.error('cannot post an event notification', {
        key: note.key,
        reason: result.reason,
        error: result.error,
      });
    }
    return posted;
  }

  /** Posts the stale summary when something is stale and the text differs from the last one posted. */
  async function postStaleSummary(url: string | undefined, summary: RunSummary, now: Date): Promise<void> {
    // Also when exposure events seem to match nothing: the sweep is stuck, and people should know why.
    const stuck = summary.stale.skipped.some((skip) => skip.reason === 'no exposures recorded');
    if ((summary.stale.stale.length === 0 && !stuck) || !url) return;
    const text = staleNotification(summary);
    const key = `summary:${shortHash(text, 24)}`;
    const last = await lastSummaryPosted(table);
    // Without a last mark (written by an earlier version, per text), the text's own mark stands in.
    if (last === undefined ? (await postedAlready(table, [key])).has(key) : last === key) return;
    const result = await post(url, { text });
    if (result.ok) {
      await markSummaryPosted(table, key, now);
      return;
    }
    metrics.put('SlackPostsFailed', 1, {});
    logger.error('cannot post the sweep summary', { reason: result.reason, error: result.error });
  }

  return { postNew, postStaleSummary };
}
