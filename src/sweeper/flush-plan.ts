/**
 * What one flush of new events asks for, decided without I/O: the action requests the event rules
 * queue, the notifications they post, the exposures seen (for the last-seen index) and the configs
 * discovery adds to the watch set, plus what was skipped and why. The sweeper applies the plan
 * (src/sweeper/sweeper.ts) in the order that keeps a crash from losing anything.
 */
import { type ActionRequest, actionRequestSchemas } from '../actions/request.js';
import type { Policy } from '../policy/schema.js';
import type { WatchEntry } from '../state/watch.js';
import { foldConfigName } from '../util/config-name.js';
import { globMatch } from '../util/glob.js';
import { eventValue } from './event-fields.js';
import { buildRuleRequest, ruleMatches, ruleNotification, ruleRequestId } from './event-rules.js';
import type { NewEvent } from './event-walk.js';
import { eventTime } from './identity.js';
import { newestPerName } from './name-case.js';

/**
 * Why a rule queues nothing for an event whose timestamp does not parse: the walk keeps it at its
 * neighbour's time (src/sweeper/event-walk.ts), which says nothing of its age, so the rules' age
 * limit could not hold back a client replaying an old event. A notice may still be posted.
 */
export const UNREADABLE_TIMESTAMP = 'no readable timestamp: its age cannot be checked';

export interface SkippedEvent {
  rule: string;
  event: string;
  name: string;
  reason: string;
}

export interface FlushPlan {
  toSend: ActionRequest[];
  /** `rule` and the event's `name` let the notices cap a flood per rule (src/sweeper/notices.ts). */
  toNotify: Array<{ key: string; text: string; rule: string; name: string }>;
  /** Config id → newest exposure among these events (epoch ms). */
  observed: Map<string, number>;
  /** Configs discovery starts watching (not yet on the watch set). */
  discovered: Map<string, WatchEntry>;
  /** Rule matches on events older than the rules' age limit. */
  tooOld: number;
  /** Events a rule matched but could not build a valid request from. */
  skipped: SkippedEvent[];
  /** Exposure events naming a config id no request could carry (not watched). */
  unwatchable: string[];
  /**
   * Exposure events (by name) with no config id at `configIdFrom` (nothing, or a value that is
   * no id: `found` names its shape): their exposure is not recorded.
   */
  withoutConfigId: Array<{ event: string; path: string; found?: string }>;
}

export interface FlushInput {
  events: readonly NewEvent[];
  /**
   * Events the walk read listed after ones stamped later, older than its window (src/sweeper/
   * event-walk.ts): no rule acts on them, but their exposures are recorded at once. Listed by
   * arrival, a late client's exposure is read here hours before the late-exposure walk gets to
   * it, and a config back in use through that client was judged stale (and archived) meanwhile.
   */
  late?: readonly NewEvent[];
  policy: Policy;
  /** The watch set as it stands (read only). */
  watch: ReadonlyMap<string, WatchEntry>;
  now: Date;
  /** Event rules ignore events older than this. */
  ruleMaxAgeMs: number;
}

export function planFlush(input: FlushInput): FlushPlan {
  const plan: FlushPlan = {
    toSend: [],
    toNotify: [],
    observed: new Map(),
    discovered: new Map(),
    tooOld: 0,
    skipped: [],
    unwatchable: [],
    withoutConfigId: [],
  };
  const oldest = input.now.getTime() - input.ruleMaxAgeMs;
  for (const item of input.events) {
    applyRules(plan, input, item, oldest);
    observeExposures(plan, input, item);
  }
  for (const item of input.late ?? []) observeExposures(plan, input, item);
  foldForms(plan, input);
  return plan;
}

/**
 * An exposure names the config as the app passed it to the SDK, and the platform evaluates names
 * whatever their case: `New_Checkout_Copy` is a use of the watched `new_checkout_copy`. Recorded
 * only under the form written, the watched config looked unexposed and was archived in daily use.
 * So every form of a name (the ones exposed here, the watched ones, the policy's) takes the newest
 * exposure of any of them: a config can only look more recently used, never less.
 */
function foldForms(plan: FlushPlan, input: FlushInput): void {
  if (plan.observed.size === 0) return;
  const newest = newestPerName(plan.observed);
  const forms = [
    ...plan.observed.keys(),
    ...input.watch.keys(),
    ...(input.policy.sweeper.staleConfigs?.configs ?? []),
  ];
  for (const id of forms) {
    const at = newest.get(foldConfigName(id));
    if (at !== undefined) plan.observed.set(id, Math.max(plan.observed.get(id) ?? at, at));
  }
}

function applyRules(plan: FlushPlan, input: FlushInput, { event, id, ts }: NewEvent, oldest: number): void {
  for (const rule of input.policy.sweeper.eventRules) {
    if (!ruleMatches(rule, event)) continue;
    // Its `ts` is a neighbour's: an action waits for an age that can be checked.
    const unreadable = rule.enqueue !== undefined && Number.isNaN(eventTime(event));
    if (unreadable)
      plan.skipped.push({ rule: rule.name, event: id, name: event.name, reason: UNREADABLE_TIMESTAMP });
    if (ts < oldest) {
      if (!unreadable) plan.tooOld++;
      continue;
    }
    if (rule.enqueue && !unreadable) {
      const built = buildRuleRequest(rule, event, id, input.now);
      if (built.ok) plan.toSend.push(built.request);
      else plan.skipped.push({ rule: rule.name, event: id, name: event.name, reason: built.reason });
    }
    if (rule.notify) {
      const key = ruleRequestId(rule.name, id);
      plan.toNotify.push({ key, text: ruleNotification(rule, event), rule: rule.name, name: event.name });
    }
  }
}

function observeExposures(
  plan: FlushPlan,
  input: FlushInput,
  { event, id, ts, loggedAfter }: NewEvent,
): void {
  const stale = input.policy.sweeper.staleConfigs;
  for (const spec of stale?.exposureEvents ?? []) {
    if (!globMatch(spec.name, event.name)) continue;
    const value = eventValue(event, spec.configIdFrom);
    const configId = configIdOf(value);
    if (configId === undefined) {
      // Counted, not ignored: a path that misses the SDKs' field would make used configs look stale.
      const found = shapeOf(value);
      plan.withoutConfigId.push({ event: id, path: spec.configIdFrom, ...(found ? { found } : {}) });
      continue;
    }
    if (Number.isNaN(ts)) continue;
    // A client wrote it: an id no config can have (over-long, control characters) is neither
    // recorded (a key past DynamoDB's 1 KB would stop every flush) nor watched, unless the
    // policy names it.
    const watched = input.watch.has(configId);
    if (!watched && !actionRequestSchemas().identifier.safeParse(configId).success) {
      if (stale?.discover) plan.unwatchable.push(id);
      continue;
    }
    // Read now, it was logged by now: a device clock years ahead would keep the config "exposed
    // recently" (never judged stale, its archive denied) for years; the run's time bounds it.
    // Stamped decades behind the events listed before it (seconds, a reset clock), it was logged
    // after them: seen no earlier (src/sweeper/implausible-stamps.ts).
    const at = Math.min(Math.max(ts, loggedAfter ?? ts), input.now.getTime());
    plan.observed.set(configId, Math.max(plan.observed.get(configId) ?? at, at));
    if (!stale?.discover || watched || plan.discovered.has(configId)) continue;
    plan.discovered.set(configId, { configId, watchedSince: input.now.getTime(), origin: 'discovered' });
  }
}

/**
 * A config id is a string (or a number, as written): the spec's event metadata is an object of
 * client-written values, and configs are named by strings. An object or list (`{"name": "x"}`)
 * is no id: its JSON text would make a bogus config on the watch set and in last-seen (and, with
 * the sweep on, an archive request for it). `configIdFrom` can name the string inside it.
 */
function configIdOf(value: unknown): string | undefined {
  // Whitespace around a name is a client's padding (no config id holds whitespace): unrecorded, the
  // watched config it names looked unexposed.
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** What was at the path instead of an id, for the log line (undefined: nothing there). */
function shapeOf(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) return 'list';
  return typeof value;
}

/** The exposures a flush could not record for want of a config id, for the summary and the log line. */
export function withoutConfigIdReport(plan: FlushPlan) {
  const missing = plan.withoutConfigId;
  if (missing.length === 0) return undefined;
  const found = [...new Set(missing.flatMap((m) => (m.found ? [m.found] : [])))];
  return {
    count: missing.length,
    paths: [...new Set(missing.map((m) => m.path))],
    ...(found.length > 0 ? { found } : {}),
    event: missing[0]?.event,
  };
}
