/**
 * What the sweeper posts to the notifications channel: event-rule notifications (each once,
 * marked in the state table; at most NOTIFY_CAP_PER_RULE per rule and run, the rest summed up in
 * one post) and the stale-config summary (only when its text changed since the last post, so an
 * hourly schedule does not repeat itself hourly). Posts are informational: a failed one is logged
 * and counted, never retried and never allowed to hold back a run. So is a notice with no channel
 * to go to (`slackWebhookUrl` empty, or unreadable this run): it is as lost as a failed post.
 */
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { cutCodePoints, escapeMrkdwn, inlineCode, oneLine } from '../slack/mrkdwn.js';
import type { PostResult, SlackMessage } from '../slack/post.js';
import { lastSummaryPosted, markSummaryPosted, postedAlready } from '../state/notify-marks.js';
import type { StateTable } from '../state/table.js';
import type { FlushPlan } from './flush-plan.js';
import { shortHash } from './identity.js';
import { type OverCap, POST_MS, perRuleCap } from './rule-caps.js';
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

/**
 * Notices one event rule posts one by one in a run. Logged events are untrusted (a client can log
 * `experiment_started` in a loop) and Slack's incoming webhooks take about one post a second: 20 is
 * some 20 s of the channel's rate in a run (runs are 15 minutes apart by default: at most 80 an hour
 * per rule), about what a person reads of one kind at once, and leaves the other rules room. Not a
 * policy field: past 20 lines of one kind nobody reads the 21st, and the summed-up post says how many.
 */
export const NOTIFY_CAP_PER_RULE = 20;

export function createNotices(deps: {
  table: StateTable;
  post: (url: string, message: SlackMessage) => Promise<PostResult>;
  metrics: Metrics;
  logger: Logger;
  clock?: () => number;
}) {
  const { table, post, metrics, logger } = deps;
  const clock = deps.clock ?? Date.now;

  const caps = perRuleCap(
    NOTIFY_CAP_PER_RULE,
    'notices for this run: the rest are summed up in one post',
    logger,
  );

  /** Splits new notes into those the rule may still post this run and those over its cap (handled, counted). */
  function withinCap(notes: FlushPlan['toNotify'], summary: RunSummary) {
    const handled: string[] = [];
    const fresh: FlushPlan['toNotify'] = [];
    for (const note of notes) {
      if (caps.take(summary, note.rule, note.key, note.name)) {
        fresh.push(note);
        continue;
      }
      summary.rules.notifyCapped++;
      handled.push(note.key);
    }
    return { fresh, handled };
  }

  /**
   * Posts the notifications not posted before; returns the keys handled now (the caller marks them):
   * the ones posted, and the ones over their rule's cap for this run (counted, summed up by
   * `postCapped`, never posted one by one, not by a later run either).
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
      // Lost for good: these events are behind the cursor once the run ends, and no later run
      // derives their notices again. Counted as posts not delivered, so SlackPostsFailing sees it.
      summary.rules.notifySkipped += notes.length;
      metrics.put('SlackPostsFailed', notes.length, {}, { reason: 'no channel' });
      logger.warn(
        "event notifications not posted: no notifications channel (the sweeper secret's slackWebhookUrl is empty, or the secret could not be read)",
        { count: notes.length },
      );
      return [];
    }
    const already = await postedAlready(
      table,
      notes.map((n) => n.key),
    );
    const { fresh, handled } = withinCap(
      notes.filter((n) => !already.has(n.key)),
      summary,
    );
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
        handled.push(note.key);
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
    return handled;
  }

  /**
   * The one post for what the rules matched past their cap this run (none when nothing did), with
   * a warning line. `end`: the invocation's own end (the run's deadline is past when a flood used it).
   */
  async function postCapped(url: string | undefined, summary: RunSummary, end: number): Promise<void> {
    const over = caps.overs(summary);
    if (over.length === 0 || !url) return;
    const rules = over.map(({ rule, count, examples }) => ({ rule, count, names: examples }));
    logger.warn('event rules matched more events than they may post in a run: summed up in one post', {
      cap: NOTIFY_CAP_PER_RULE,
      rules,
    });
    if (clock() + POST_MS >= end) {
      logger.warn('the run is at its end: the post summing up notices over the cap is not posted', { rules });
      return;
    }
    const result = await post(url, { text: cappedNotification(over) });
    if (result.ok) return;
    metrics.put('SlackPostsFailed', 1, {});
    logger.error('cannot post the notices over the cap', { reason: result.reason, error: result.error });
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

  return { postNew, postCapped, postStaleSummary };
}

/** "…and 3,412 more `experiment_started` events matched rule "x" this run", a line per rule. */
function cappedNotification(over: OverCap[]): string {
  const lines = over.map(({ rule, count, examples }) => {
    // Client-written names: one line each, cut, as inline code.
    const names = examples.map((name) => inlineCode(cutCodePoints(name, 60)));
    const which = names.length > 1 ? ` (${names.join(', ')}${count > names.length ? ', …' : ''})` : '';
    const what = names.length === 1 ? `${names[0]} events` : `events${which}`;
    return `…and ${count.toLocaleString('en-US')} more ${what} matched rule "${escapeMrkdwn(oneLine(rule))}" this run`;
  });
  return (
    `${lines.join('\n')}\nNot posted one by one (at most ${NOTIFY_CAP_PER_RULE} notices per rule a run), ` +
    'and not posted later: a client logging these in a loop?'
  );
}
