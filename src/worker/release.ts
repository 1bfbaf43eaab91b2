/**
 * The release tick: a short periodic step (an EventBridge rule every minute invokes the worker's
 * function with a scheduled event; the local stack runs the same step on a timer) that sends
 * held requests back to the queue when their wait is over: every paused request once the pause
 * is lifted, a window or limit wait at its next look, an unanswered question at its next look.
 * A request waiting three days therefore costs one held record and one message, not a delayed
 * message every 15 minutes. A released copy keeps its request id: the final record and the
 * effect claim still make a release that races another copy one API call at most. The tick also
 * tells the give-up of a copy that died on its last receive (dead-attempts.ts).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RequesterSigner } from '../actions/proof.js';
import { effectKey } from '../actions/request.js';
import { sendActionRequest } from '../queue/actions-queue.js';
import { writeAudit } from '../state/audit.js';
import { type HeldRecord, isStuck } from '../state/held.js';
import { expiresSoon, keepHeldThroughPause } from '../state/held-keep.js';
import { type HeldEntry, heldEntryPages, readHeldRecords } from '../state/held-list.js';
import { markReleased, unmarkReleased } from '../state/held-release.js';
import { readPause } from '../state/pause.js';
import { forEachBounded } from '../util/pool.js';
import { answerPendingPastExpiry } from './answer-pending.js';
import { tellDeadAttempts } from './dead-attempts.js';
import { endStuckCancelled, endStuckExpired, type StuckDeps } from './stuck.js';

/** A released copy that never came back (lost, or its worker crashed) is sent again after this long. */
export const RELEASE_RETRY_MS = 15 * 60_000;

/**
 * The tick starts no new work once its invocation has less than this left: a chunk's sends,
 * marks and audit records in flight finish well within it, and what is left stays held for the
 * next tick (nothing is lost). A tick that ran out mid-write would leave a send without its audit.
 */
export const TICK_MARGIN_MS = 10_000;

/** Full records read and acted on at a time (BatchGetItem's 100 keys): ~1.2 MB of 12 KB bodies. */
const CHUNK = 100;

/** The tick's deps: the stuck-wait endings' (stuck.ts: table, logger, where to tell, policy, metrics, the worker's own), and the queue. */
export interface ReleaseDeps extends StuckDeps {
  sqs: Pick<SQSClient, 'send'>;
  queueUrl: string;
  /** Vouches for the copy as the original was vouched for (the worker holds every signer's key). */
  signer?: RequesterSigner;
}

export interface ReleaseSummary {
  held: number;
  released: string[];
  /** Stuck waits ended here, as no copy of them comes back: cancelled, or past their expiry. */
  ended: string[];
  /** Due, but their send failed: still held, sent again by a later tick (the handler fails the tick for them). */
  notReleased: string[];
  /** Due, but not started for want of time (the oldest due went first): still held, the next tick's. */
  left: number;
  /**
   * Every held item left for the next tick for want of time: `left`, the stuck waits not ended and
   * (paused) the records not kept alive. The worker counts it (ReleaseTickBehind): a tick out of
   * time every minute still beats its heartbeat, so only this shows people waiting past the minute.
   */
  behind: number;
  /** Full held records (with their requests) read by key: only those the tick acted on. */
  bodiesRead: number;
  /** Requests told given up here: their copy died on its last receive (dead-attempts.ts). */
  givenUp: string[];
  /** Requests whose copy died on its last receive after their end was stored, before telling it: told here. */
  endsTold: string[];
  paused: boolean;
}

/**
 * True when `held` should be sent back now: a cancelled one at once (the worker ends it), the
 * others when their wait is over. While paused nothing else is: it would only be held again.
 */
export function isDue(held: HeldEntry, paused: boolean, now: Date): boolean {
  if (isStuck(held)) return false;
  if (held.releasedAt && now.getTime() - Date.parse(held.releasedAt) < RELEASE_RETRY_MS) return false;
  if (held.cancel) return true;
  if (paused) return false;
  if (held.why === 'paused') return true;
  return held.nextLook !== undefined && Date.parse(held.nextLook) <= now.getTime();
}

function releaseReason(held: HeldRecord): string {
  if (held.cancel) return `cancelled by ${held.cancel.by}: sent back so that the worker ends it`;
  return held.why === 'paused'
    ? 'automation was resumed: the request held by the pause is looked at again'
    : `its next look (${held.nextLook}) has come: the request is looked at again`;
}

/** What one listing of the held partition gives the tick: only the entries it acts on are kept. */
interface Listing {
  held: number;
  /** Due, in the order they go: cancels (people were told "within a minute"), then the oldest due. */
  due: HeldEntry[];
  /** Stuck waits the tick may end itself: cancelled, or (not paused, a policy known) past their expiry. */
  stuck: HeldEntry[];
  /** Paused: records whose TTL must be moved on (held-keep.ts). */
  expiring: HeldEntry[];
}

async function listForTick(deps: ReleaseDeps, paused: boolean, now: Date): Promise<Listing> {
  const listing: Listing = { held: 0, due: [], stuck: [], expiring: [] };
  for await (const page of heldEntryPages(deps.table))
    for (const entry of page) {
      listing.held++;
      // Whether a stuck one is past its expiry depends on its request: its body is read to tell.
      if (isStuck(entry) && (entry.cancel || (deps.policy && !paused))) listing.stuck.push(entry);
      else if (isDue(entry, paused, now)) listing.due.push(entry);
      if (paused && expiresSoon(entry, now)) listing.expiring.push(entry);
    }
  listing.due.sort(dueFirst);
  return listing;
}

/** When its wait ended: a pause's when it began waiting (all end at the resume), else its next look. */
const dueAt = (entry: HeldEntry) =>
  entry.cancel?.at ?? (entry.why === 'paused' ? entry.since : (entry.nextLook ?? entry.since));

function dueFirst(a: HeldEntry, b: HeldEntry): number {
  if (Boolean(a.cancel) !== Boolean(b.cancel)) return a.cancel ? -1 : 1;
  return dueAt(a).localeCompare(dueAt(b)) || a.requestId.localeCompare(b.requestId);
}

interface Tick {
  deps: ReleaseDeps;
  timeLeft: () => boolean;
  bodiesRead: number;
}

/**
 * Reads the full records of `entries` a chunk at a time and acts on each chunk, while time is
 * left: how many entries were not reached. One chunk of bodies is in memory at a time.
 */
async function inChunks(
  tick: Tick,
  entries: readonly HeldEntry[],
  act: (records: HeldRecord[]) => Promise<void>,
): Promise<number> {
  for (let i = 0; i < entries.length; i += CHUNK) {
    if (!tick.timeLeft()) return entries.length - i;
    const ids = entries.slice(i, i + CHUNK).map((entry) => entry.requestId);
    const records = await readHeldRecords(tick.deps.table, ids);
    tick.bodiesRead += records.length;
    await act(records);
  }
  return 0;
}

/**
 * One tick. `remainingMs` is the invocation's time left (the Lambda context's; the local stack
 * hands a 60 s one, src/local/stack.ts `runRelease`); without one (tests calling it directly)
 * the tick has no deadline of its own.
 */
export async function releaseHeld(
  deps: ReleaseDeps,
  now: Date,
  remainingMs: () => number = () => Number.POSITIVE_INFINITY,
): Promise<ReleaseSummary> {
  const pause = await readPause(deps.table);
  const listing = await listForTick(deps, pause.paused, now);
  const tick: Tick = { deps, timeLeft: () => remainingMs() > TICK_MARGIN_MS, bodiesRead: 0 };
  const ended: string[] = [];
  let stuckNotStarted = 0;
  const stuckUnread = await inChunks(tick, listing.stuck, async (records) => {
    // The time is checked before each end, not only each chunk: an end posts to the requester and
    // the channel (up to 5 s each), so a chunk of 100 would run on past the invocation's timeout.
    for (const record of records) {
      if (!tick.timeLeft()) {
        stuckNotStarted++;
        continue;
      }
      ended.push(...(await endStuckCancelled(deps, [record], now)));
      ended.push(...(await endStuckExpired(deps, [record], now, pause.paused, remainingMs)));
    }
  });
  const released: string[] = [];
  const notReleased: string[] = [];
  let notStarted = 0;
  const unreached = await inChunks(tick, listing.due, (records) =>
    forEachBounded(records, 5, async (record) => {
      // Read again since the listing: a worker that held it anew, or another tick, decides now.
      if (!isDue(record, pause.paused, now)) return;
      // Past its expiry, a question answered in time waits for its answer's copy (answer-pending.ts):
      // sent back now, the worker would deny it as expired, and the copy tell the clicker that denial.
      if (answerPendingPastExpiry(record, deps.policy, now, deps.maxReceiveCount)) return;
      if (!tick.timeLeft()) {
        notStarted++;
        return;
      }
      const sent = await releaseOne(deps, record, now);
      if (sent === 'released') released.push(record.requestId);
      if (sent === 'failed') notReleased.push(record.requestId);
    }),
  );
  const left = unreached + notStarted;
  // Paused, nothing is held again by a worker: the records' own clean-up must not end them (held-keep.ts).
  const keep = pause.paused
    ? await keepHeldThroughPause(deps.table, now, { expiring: listing.expiring, timeLeft: tick.timeLeft })
    : { left: 0 };
  // Copies that died on their last receive, after the held requests (one Query when there are none).
  const dead = await tellDeadAttempts(deps, now, tick.timeLeft, remainingMs);
  const stuckLeft = stuckUnread + stuckNotStarted;
  const behind = left + stuckLeft + keep.left + dead.left;
  if (behind > 0)
    deps.logger.warn('release tick out of time: the rest is left held for the next tick', {
      left,
      stuckUnread: stuckLeft,
      keepLeft: keep.left,
      deadAttemptsLeft: dead.left,
      released: released.length,
    });
  return {
    held: listing.held,
    released,
    ended,
    notReleased,
    left,
    behind,
    bodiesRead: tick.bodiesRead,
    givenUp: dead.told,
    endsTold: dead.endsTold,
    paused: pause.paused,
  };
}

/** Sends one back; `marked-elsewhere` when another tick (or a worker) changed it first. */
async function releaseOne(
  deps: ReleaseDeps,
  record: HeldRecord,
  now: Date,
): Promise<'released' | 'failed' | 'marked-elsewhere'> {
  // Marked first: a second tick running at the same time leaves it to this one.
  if (!(await markReleased(deps.table, record, now))) return 'marked-elsewhere';
  let messageId: string;
  try {
    messageId = await sendActionRequest(deps.sqs, deps.queueUrl, record.request, {
      ...(deps.signer ? { signer: deps.signer } : {}),
    });
  } catch (error) {
    // Still held and marked: a later tick sends it again (RELEASE_RETRY_MS); the others go on.
    await unmarkReleased(deps.table, record, now).catch(() => {});
    deps.logger.error('held request not released', { requestId: record.requestId, error });
    return 'failed';
  }
  await writeAudit(deps.table, {
    requestId: record.requestId,
    at: now,
    action: record.action,
    target: record.target,
    effectKey: effectKey(record.request),
    requester: record.requester,
    rule: 'release',
    reason: releaseReason(record),
    result: 'released',
    dryRun: false,
    messageId,
  });
  deps.logger.info('held request released', { requestId: record.requestId, why: record.why, messageId });
  return 'released';
}
