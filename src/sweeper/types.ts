/**
 * What the sweeper needs from its surroundings: its dependencies (`SweeperDeps`), the one
 * Console API call it makes (`client.events.list`) as a structural type, the event record it
 * reads and the steps a run goes through (observable and interruptible by tests through
 * `hooks.onStep`).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RequesterSigner } from '../actions/proof.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Policy } from '../policy/schema.js';
import type { PostResult, SlackMessage } from '../slack/post.js';
import type { LastSeenIndex } from '../state/last-seen.js';
import type { PauseState } from '../state/pause.js';
import type { StateTable } from '../state/table.js';
import type { WatchEntry } from '../state/watch.js';
import type { RunSummary } from './summary.js';

/** A logged event (spec 2.12); unknown fields are kept but not used. */
export interface EventLike {
  timestamp: string;
  name: string;
  source?: string | undefined;
  value?: string | undefined;
  userID?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** The part of a list response the poller uses. `itemsPerPage` is the page size the API applied. */
export interface EventsPage {
  data: EventLike[];
  pagination: { itemsPerPage: number; pageNumber: number; totalItems: number };
}

/** `client.events` of the Console API client (or anything shaped like it). */
export interface EventsSource {
  list(
    params: { page: number; limit: number },
    options?: { deadline?: number; signal?: AbortSignal },
  ): PromiseLike<EventsPage>;
}

export type { EventOrder } from '../state/sweep-cursor.js';

/**
 * The durable steps of a run, in the order they happen. A flush of the poller goes
 * enqueue → notify → notify-marks → last-seen → watch → cursor; the stale sweep goes
 * stale-enqueue → stale-marks; then the summary.
 */
export const SWEEPER_STEPS = [
  'page',
  'enqueue',
  'notify',
  'notify-marks',
  'last-seen',
  'watch',
  'cursor',
  'stale-enqueue',
  'stale-marks',
  'summary',
] as const;
export type SweeperStep = (typeof SWEEPER_STEPS)[number];

export interface SweeperHooks {
  /** Called after each step completes; a throw here models a crash right after that step. */
  onStep?(step: SweeperStep, detail: Record<string, unknown>): void | Promise<void>;
}

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
  /** Config ids the last-seen index keeps (src/state/last-seen.ts). Default LAST_SEEN_MAX_IDS. */
  lastSeenMaxIds?: number;
}

export interface RunInput {
  /** Business time: requestedAt, staleness, grace. Default: the wall clock. */
  now?: Date;
  /** Time left for this invocation (Lambda: `context.getRemainingTimeInMillis`). Default 15 min. */
  remainingMs?: number | (() => number);
}

/** What one run's walks over the log share: its time, its deadline, its summary, the watch set and last-seen index. */
export interface EventState {
  now: Date;
  deadline: number;
  summary: RunSummary;
  watch: Map<string, WatchEntry>;
  lastSeen: LastSeenIndex;
}
