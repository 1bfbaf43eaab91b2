/**
 * The stale-config judgment (README, "Sweeper"), pure: a watched config is stale when it has no
 * exposure in the last `staleAfterDays`, our observation of exposures covers at least
 * `staleAfterDays`, and it has been watched for `graceDays`; and only while some config's exposure
 * was recorded in that window (none at all means the exposure events match nothing the SDKs log,
 * not that everything is unused). Stale configs are queued for archiving, longest-unexposed first,
 * at most `maxPerRun` per run, one per name (src/sweeper/stale-forms.ts); never a `protect`ed one;
 * in dry run they are only reported. Every config that is not queued carries the reason why.
 */
import { type ArchiveConfigRequest, actionRequestSchemas } from '../actions/request.js';
import type { StaleConfigsPolicy } from '../policy/schema.js';
import { STALE_SWEEP_ID } from '../policy/stale-sweep.js';
import { AUDIT_KEEP_DAYS, type FinalOutcome } from '../state/audit.js';
import { lastSeenOf } from '../state/last-seen.js';
import type { WatchEntry } from '../state/watch.js';
import { protectingGlobOf } from '../util/glob.js';
import { shortHash, slug } from './identity.js';
import { oneFormPerName } from './stale-forms.js';

const DAY = 86_400_000;

export type StaleSkipReason =
  | 'protected'
  | 'grace'
  | 'cap'
  | 'observation too short'
  | 'paused'
  | 'queued earlier'
  | 'archived'
  | 'ended earlier'
  | 'denied earlier'
  | 'invalid config id'
  | 'not in policy'
  | 'same config'
  | 'no exposures recorded';

export interface StaleConfig {
  configId: string;
  lastSeen: number | null;
  days: number;
}

export interface StalePlan {
  /** Stale by the rule (protected ones included), longest-unexposed first. */
  stale: StaleConfig[];
  /** Requests to send (empty in dry run). */
  queue: ArchiveConfigRequest[];
  /** Dry run: what would have been queued. */
  wouldQueue: string[];
  skipped: Array<{ configId: string; reason: StaleSkipReason; detail?: string }>;
  dryRun: boolean;
}

export interface StaleInput {
  policy: StaleConfigsPolicy;
  protect: readonly string[];
  now: Date;
  observedSince: number | null;
  watch: ReadonlyMap<string, WatchEntry>;
  lastSeen: ReadonlyMap<string, number>;
  /** The last-seen index's eviction watermark: an id without an entry counts as seen then (src/state/last-seen.ts). */
  evictedUpTo?: number | null | undefined;
  paused: boolean;
  /** How the archives asked earlier ended (request id → final outcome; absent: not ended, or not read). */
  outcomes?: ReadonlyMap<string, FinalOutcome> | undefined;
  /** The policy's `approvals.maxDeferHours`: an ask older than it can no longer be carried out. */
  maxDeferHours?: number | undefined;
}

/**
 * A denied archive is asked again this long after the denial: a daily limit has reset, and a
 * freeze, a policy change or a config's protection is seen within a day, without a request (and
 * its denial in the channel) on every run.
 */
export const ASK_AGAIN_AFTER_DENIAL_MS = DAY;

/**
 * Same config, same last exposure, same attempt → same id: the worker drops a request queued
 * twice (a crash between sending and marking sends the same again). `attempt` counts the times
 * it was asked again after a denial (0: the first ask, whose id has no suffix).
 */
export function staleRequestId(configId: string, lastSeen: number | null, attempt = 0): string {
  const base = `stale:${slug(configId, 48)}-${shortHash(configId, 6)}:${lastSeen ?? 'never'}`;
  return attempt === 0 ? base : `${base}:again-${attempt}`;
}

/**
 * The attempt of the archive asked earlier for this config and last exposure (the watch entry's
 * mark), or undefined: none asked yet in this staleness episode. `indexed`: the config has an
 * entry of its own in the last-seen index. Without one its last exposure is the eviction
 * watermark, which rises as other ids are evicted, with no exposure of this config: an ask made
 * at an earlier watermark (or at its own entry, before it was evicted) is the same episode, or
 * each rise would ask for the archive again while the first ask still waits.
 */
function earlierAttempt(entry: WatchEntry, lastSeen: number | null, indexed = true): number | undefined {
  const prefix = staleRequestId(entry.configId, null).slice(0, -'never'.length);
  const asked = entry.archiveRequestId;
  if (!asked?.startsWith(prefix)) return undefined;
  const [seen, again] = asked.slice(prefix.length).split(':again-');
  const episode =
    seen === String(lastSeen ?? 'never') ||
    (!indexed && lastSeen !== null && (seen === 'never' || Number(seen) <= lastSeen));
  if (!episode) return undefined;
  const attempt = again === undefined ? 0 : Number(again);
  return Number.isSafeInteger(attempt) && (attempt > 0 || again === undefined) ? attempt : undefined;
}

/** The ids of the archives asked earlier in the current episodes: the sweeper reads how they ended. */
export function earlierAsks(
  watch: ReadonlyMap<string, WatchEntry>,
  lastSeen: ReadonlyMap<string, number>,
  evictedUpTo: number | null = null,
): string[] {
  return [...watch.values()].flatMap((entry) =>
    earlierAttempt(entry, lastSeenOf(lastSeen, evictedUpTo, entry.configId), lastSeen.has(entry.configId)) ===
    undefined
      ? []
      : [entry.archiveRequestId as string],
  );
}

/**
 * Whether to ask (and under which id), or why not: an archive asked earlier for the same last
 * exposure is not asked again while it waits or once it ended otherwise (done, cancelled, ...);
 * a denied one is, a day after the denial (the reason may be gone: a limit reset, a freeze over,
 * the policy changed), except a person's veto (asking again would only repeat what they said no to);
 * one that never ended (dead-lettered) is, once it can no longer be carried out (`unendedAskAgainAt`).
 */
function nextAsk(
  entry: WatchEntry,
  config: StaleConfig,
  input: StaleInput,
): { requestId: string } | { reason: StaleSkipReason; detail?: string } {
  const attempt = earlierAttempt(entry, config.lastSeen, input.lastSeen.has(config.configId));
  if (attempt === undefined) return { requestId: staleRequestId(config.configId, config.lastSeen) };
  const final = input.outcomes?.get(entry.archiveRequestId as string);
  if (!final && input.outcomes) {
    const again = unendedAskAgainAt(entry, input);
    if (again === undefined) return { reason: 'queued earlier' };
    if (input.now.getTime() < again)
      return {
        reason: 'queued earlier',
        detail: `no end recorded yet; asked again from ${new Date(again).toISOString()} if none is by then`,
      };
    return { requestId: staleRequestId(config.configId, config.lastSeen, attempt + 1) };
  }
  if (!final) return { reason: 'queued earlier' };
  // Ended otherwise: told as what it is, never as still queued (the channel read "queued for
  // archiving" about a config archived, or refused, days before).
  if (final.result === 'archived') return { reason: 'archived' };
  if (final.result !== 'denied' || final.rule === 'veto')
    return { reason: 'ended earlier', detail: `${final.result} (rule ${final.rule}) at ${final.at}` };
  const again = Date.parse(final.at) + ASK_AGAIN_AFTER_DENIAL_MS;
  if (!(input.now.getTime() >= again))
    return {
      reason: 'denied earlier',
      detail: `denied (rule ${final.rule}) at ${final.at}; asked again from ${Number.isNaN(again) ? 'never' : new Date(again).toISOString()}`,
    };
  return { requestId: staleRequestId(config.configId, config.lastSeen, attempt + 1) };
}

/**
 * When an ask with no end recorded is asked again, or undefined: never. The worker denies any
 * request older than `maxDeferHours` (the expiry comes before every approval; a paused one is
 * held, and the sweep does not ask while paused), so an ask with no end a day past that never
 * ended and never will: it went to the DLQ (requester not proven after a key rotation, a
 * validation error, retries exhausted) or was lost; a redrive of it now is denied as expired. Not
 * before: while it may still be held or retried, asking again would ask twice at once. Past the
 * audit's retention its end may have expired unread (done, vetoed): not asked again.
 */
function unendedAskAgainAt(entry: WatchEntry, input: StaleInput): number | undefined {
  const queuedAt = entry.archiveQueuedAt;
  if (queuedAt === undefined || input.maxDeferHours === undefined) return undefined;
  if (input.now.getTime() - queuedAt >= AUDIT_KEEP_DAYS * DAY) return undefined;
  return queuedAt + input.maxDeferHours * 3_600_000 + ASK_AGAIN_AFTER_DENIAL_MS;
}

/**
 * Whether the policy still asks for `entry` to be judged: listed in `configs`, or discovered
 * (or seen in exposures) while `discover` is on. The watch set only grows; the policy decides.
 */
function judged(entry: WatchEntry, input: StaleInput): boolean {
  if (input.policy.configs.includes(entry.configId)) return true;
  return input.policy.discover && (entry.origin === 'discovered' || input.lastSeen.has(entry.configId));
}

/** Watched configs without an exposure in the window, least recently seen first. */
function unexposedConfigs(input: StaleInput, now: number, window: number): StaleConfig[] {
  const unexposed: StaleConfig[] = [];
  for (const entry of input.watch.values()) {
    if (!judged(entry, input)) continue;
    // Evicted from the index (or never in it): as recently as the newest id evicted, never earlier.
    const lastSeen = lastSeenOf(input.lastSeen, input.evictedUpTo, entry.configId);
    if (lastSeen !== null && now - lastSeen < window) continue; // exposed recently
    const observed = input.observedSince ?? now;
    // Without an entry of its own, unexposed only as far back as observation goes, however old the watermark.
    const since = input.lastSeen.has(entry.configId)
      ? (lastSeen ?? observed)
      : Math.max(lastSeen ?? observed, observed);
    unexposed.push({ configId: entry.configId, lastSeen, days: Math.floor((now - since) / DAY) });
  }
  return unexposed.sort(
    (a, b) => (a.lastSeen ?? -1) - (b.lastSeen ?? -1) || a.configId.localeCompare(b.configId),
  );
}

/**
 * Why this run can judge no config stale, or undefined: exposures observed for less than the
 * window; or not one exposure of any config recorded in it, which means the exposure events
 * most likely match nothing the SDKs log (a name or configIdFrom that differs), not that every
 * config is unused.
 */
function notJudgeable(input: StaleInput, now: number, window: number) {
  const { policy } = input;
  const observed = input.observedSince === null ? 0 : now - input.observedSince;
  if (observed < window)
    return {
      reason: 'observation too short' as const,
      detail: `exposures observed for ${Math.floor(observed / DAY)} of ${policy.staleAfterDays} days`,
    };
  // A loop, not `Math.max(...)`: the index holds every id clients log, and one argument per
  // config overflows the stack from some 150,000 of them.
  let newest = Number.NEGATIVE_INFINITY;
  for (const at of input.lastSeen.values()) if (at > newest) newest = at;
  if (now - newest >= window)
    return {
      reason: 'no exposures recorded' as const,
      detail: `no event matched exposureEvents in ${policy.staleAfterDays} days: check their names and configIdFrom against what the SDKs log`,
    };
  return undefined;
}

export function planStaleSweep(input: StaleInput): StalePlan {
  const { policy } = input;
  const now = input.now.getTime();
  const window = policy.staleAfterDays * DAY;
  const plan: StalePlan = { stale: [], queue: [], wouldQueue: [], skipped: [], dryRun: policy.dryRun };
  for (const entry of input.watch.values())
    if (!judged(entry, input)) plan.skipped.push({ configId: entry.configId, reason: 'not in policy' });

  const cannot = notJudgeable(input, now, window);
  for (const config of oneFormPerName(unexposedConfigs(input, now, window), input, plan, earlierAttempt)) {
    if (cannot) {
      plan.skipped.push({ configId: config.configId, ...cannot });
      continue;
    }
    plan.stale.push(config);
    const entry = input.watch.get(config.configId) as WatchEntry;
    if (protectingGlobOf(input.protect, config.configId) !== undefined) {
      plan.skipped.push({ configId: config.configId, reason: 'protected' });
      continue;
    }
    const watchedDays = (now - entry.watchedSince) / DAY;
    if (watchedDays < policy.graceDays) {
      plan.skipped.push({
        configId: config.configId,
        reason: 'grace',
        detail: `watched for ${Math.floor(watchedDays)} of ${policy.graceDays} days`,
      });
      continue;
    }
    const ask = nextAsk(entry, config, input);
    if ('reason' in ask) {
      if (ask.reason === 'archived') plan.stale.pop(); // done: no longer a stale config in use
      plan.skipped.push({ configId: config.configId, ...ask });
      continue;
    }
    const { requestId } = ask;
    if (input.paused && !policy.dryRun) {
      plan.skipped.push({ configId: config.configId, reason: 'paused' });
      continue;
    }
    if (plan.queue.length + plan.wouldQueue.length >= policy.maxPerRun) {
      plan.skipped.push({
        configId: config.configId,
        reason: 'cap',
        detail: `maxPerRun ${policy.maxPerRun}`,
      });
      continue;
    }
    const request = actionRequestSchemas().archiveConfig.safeParse({
      version: 1,
      action: 'archive_config',
      configId: config.configId,
      reason: policy.reason.replaceAll('{days}', String(config.days)),
      force: policy.forceArchive,
      requestedBy: { source: 'schedule', id: STALE_SWEEP_ID },
      requestedAt: input.now.toISOString(),
      requestId,
    });
    if (!request.success) {
      plan.skipped.push({ configId: config.configId, reason: 'invalid config id' });
      continue;
    }
    if (policy.dryRun) plan.wouldQueue.push(config.configId);
    else plan.queue.push(request.data);
  }
  return plan;
}
