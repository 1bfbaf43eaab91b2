/**
 * The cap on the action requests one event rule queues in a run. Logged events are untrusted (a
 * client can log `release_checks_passed` in a loop, each with other metadata): without a cap each
 * matching event became its own request, and the worker told each outcome to the channel as its
 * own post (a denial per trigger id the approval rule does not name, a question per request under
 * an `ask` rule, each question denied again at `maxDeferHours`). The requests past the cap are not
 * queued: counted (`rules.enqueueCapped`), marked (no later run queues them, also after a crash),
 * logged with a warning once per rule and summed up in one post at the end of the run.
 */
import { type ActionRequest, actionTarget } from '../actions/request.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { cutCodePoints, escapeMrkdwn, inlineCode, oneLine } from '../slack/mrkdwn.js';
import type { PostResult, SlackMessage } from '../slack/post.js';
import { markPosted, postedAlready } from '../state/notify-marks.js';
import type { StateTable } from '../state/table.js';
import { type OverCap, POST_MS, perRuleCap } from './rule-caps.js';
import type { RunSummary } from './summary.js';

/**
 * Requests one event rule queues in a run. A rule's events stand for releases (checks passed on a
 * canary): 50 in the 15 minutes between runs (200 an hour) is far past what release managers run,
 * and above the shipped approval rule's own `maxPerHour` (60), so a real burst meets the policy's
 * limit before this one. It bounds what a flood costs: 50 outcomes or questions in the channel a
 * run (under a minute of Slack's ~1 post a second), 50 messages and their DynamoDB writes.
 * Not a policy field, as the notices' cap (src/sweeper/notices.ts) is not.
 */
export const ENQUEUE_CAP_PER_RULE = 50;

/** A mark's key: on the notices' partition (the sweeper's role reaches no other), apart from their keys. */
const markKey = (request: ActionRequest) => `enqueue-capped#${request.requestId}`;

export function createRequestCap(deps: {
  table: StateTable;
  post: (url: string, message: SlackMessage) => Promise<PostResult>;
  metrics: Metrics;
  logger: Logger;
  clock: () => number;
}) {
  const { table, post, metrics, logger, clock } = deps;
  const caps = perRuleCap(
    ENQUEUE_CAP_PER_RULE,
    'queued requests for this run: the rest are not queued',
    logger,
  );

  /**
   * The rule requests of one flush that may be queued: those marked over a cap by an earlier run
   * are left out; of the rest, each rule's first ones up to its cap for this run. The ones over it
   * are marked before anything is sent, so no rerun queues them.
   */
  async function admit(requests: ActionRequest[], summary: RunSummary, now: Date): Promise<ActionRequest[]> {
    if (requests.length === 0) return requests;
    const marked = await postedAlready(table, requests.map(markKey));
    const admitted: ActionRequest[] = [];
    const over: ActionRequest[] = [];
    for (const request of requests) {
      if (marked.has(markKey(request))) continue;
      const taken = caps.take(
        summary,
        request.requestedBy.id ?? '',
        request.requestId,
        actionTarget(request),
      );
      (taken ? admitted : over).push(request);
    }
    if (over.length > 0) await markPosted(table, over.map(markKey), now);
    summary.rules.enqueueCapped += over.length;
    return admitted;
  }

  /** The one post for the requests the rules matched past their cap this run (none when none did). */
  async function postCapped(url: string | undefined, summary: RunSummary, end: number): Promise<void> {
    const over = caps.overs(summary);
    if (over.length === 0) return;
    const rules = over.map(({ rule, count, examples }) => ({ rule, count, targets: examples }));
    logger.warn('event rules matched more events than they may queue requests for in a run: not queued', {
      cap: ENQUEUE_CAP_PER_RULE,
      rules,
    });
    if (!url) return;
    if (clock() + POST_MS >= end) {
      logger.warn('the run is at its end: the post summing up requests over the cap is not posted', {
        rules,
      });
      return;
    }
    const result = await post(url, { text: cappedText(over) });
    if (result.ok) return;
    metrics.put('SlackPostsFailed', 1, {});
    logger.error('cannot post the requests over the cap', { reason: result.reason, error: result.error });
  }

  return { admit, postCapped };
}

/** ":warning: 950 more requests (trigger `trg_105` phase `ph_1`, …) from rule "x" were not queued this run". */
function cappedText(over: OverCap[]): string {
  const lines = over.map(({ rule, count, examples }) => {
    const targets = examples.map((t) => inlineCode(cutCodePoints(t, 80)));
    const more = count > targets.length ? ', …' : '';
    return (
      `:warning: ${count.toLocaleString('en-US')} more action requests (${targets.join(', ')}${more}) ` +
      `from rule "${escapeMrkdwn(oneLine(rule))}" were not queued this run`
    );
  });
  return (
    `${lines.join('\n')}\nAt most ${ENQUEUE_CAP_PER_RULE} requests per rule are queued a run; these are ` +
    'not queued later either: a client logging matching events in a loop? Queue a real one by hand.'
  );
}
