/**
 * The event log behind GET /events. Seeded events are stored column-wise (a timestamp, a kind
 * and one auxiliary index per event) and turned into records only when a page is served, so
 * 100,000 events cost a few hundred kilobytes and milliseconds. Events appended during a run
 * (`addEvents`) are kept as records. The log is ordered by timestamp (ties keep insertion
 * order), or with `listing: 'arrival'` by arrival (an event added stamped earlier than the ones
 * before it stays at the end, as a client SDK's late batch would); `newest-first` simply reads it
 * backwards. The spec says neither (4.6).
 */
import { hash32, type Rng } from './prng.js';
import type { EventListing, EventOrder, EventRecord, NewEvent } from './types.js';

const DAY = 86_400_000;

export const PRODUCT_EVENTS = [
  'page_view',
  'add_to_cart',
  'checkout_started',
  'purchase',
  'sign_up',
  'search',
  'app_open',
] as const;

/** Kinds 0..6 are product events; the rest are the platform events the autopilot reacts to. */
const KIND_NAMES = [
  ...PRODUCT_EVENTS,
  'config_exposure',
  'release_checks_passed',
  'experiment_started',
  'experiment_stopped',
] as const;
const K_EXPOSURE = PRODUCT_EVENTS.length;
const K_CHECKS = K_EXPOSURE + 1;
const K_EXP_STARTED = K_EXPOSURE + 2;
const K_EXP_STOPPED = K_EXPOSURE + 3;

const PLATFORMS = ['web', 'ios', 'android'] as const;
const PAGES = ['/', '/search', '/product', '/cart', '/checkout', '/account'] as const;
const COUNTRIES = ['DE', 'US', 'FR', 'GB', 'NL', 'SE'] as const;

/** What the generator needs to know about the seeded world. */
export type EventWorld = {
  /** Config ids exposed often (any time in the last 90 days). */
  exposedConfigs: readonly string[];
  /** Config ids exposed only before `quietSinceDays` ago. */
  quietConfigs: readonly string[];
  quietSinceDays: number;
  triggerIds: readonly string[];
  /** Triggers whose current phase is the canary phase: recent checks events name these. */
  canaryTriggerIds: readonly string[];
  canaryPhaseId: string;
  experimentIds: readonly string[];
};

type Columns = { ts: Float64Array; kind: Uint8Array; aux: Uint16Array; n: number };

export type EventStore = {
  readonly total: number;
  order: EventOrder;
  /** Records `offset .. offset+limit-1` in the current order. */
  slice(offset: number, limit: number): EventRecord[];
  /** Every record in the current order (tests and small logs only). */
  all(): EventRecord[];
  append(events: ReadonlyArray<NewEvent>): void;
};

export function createEventStore(options: {
  count: number;
  now: number;
  rng: Rng;
  seed: number;
  world: EventWorld;
  order: EventOrder;
  listing?: EventListing;
}): EventStore {
  const { world, seed } = options;
  const base = generate(options.count, options.now, options.rng, world);
  let added: EventRecord[] = [];

  const materialize = (i: number): EventRecord => {
    const ts = base.ts[i] as number;
    const kind = base.kind[i] as number;
    const aux = base.aux[i] as number;
    const h = hash32(seed, i);
    const name = KIND_NAMES[kind] as string;
    const userID = `user_${(h % 5000) + 1}`;
    const platform = PLATFORMS[h % 3] as string;
    const timestamp = String(ts);
    switch (kind) {
      case K_EXPOSURE: {
        const config =
          aux < world.exposedConfigs.length
            ? world.exposedConfigs[aux]
            : world.quietConfigs[aux - world.exposedConfigs.length];
        return {
          timestamp,
          name,
          source: `${platform}_sdk`,
          value: String(config),
          userID,
          metadata: { config: String(config), ruleID: (h >>> 8) % 2 === 0 ? 'default' : 'rule_1', platform },
        };
      }
      case K_CHECKS: {
        const triggerID = world.triggerIds[aux] as string;
        return {
          timestamp,
          name,
          source: 'ci',
          value: 'passed',
          userID: 'ci-bot',
          metadata: { phase: 'canary', triggerID, phaseID: world.canaryPhaseId, checks: 12 + (h % 20) },
        };
      }
      case K_EXP_STARTED:
      case K_EXP_STOPPED: {
        const experimentID = world.experimentIds[aux] as string;
        return {
          timestamp,
          name,
          source: 'console',
          value: experimentID,
          userID: `usr_${(h % 6) + 1}`,
          metadata: { experimentID, experimentName: experimentID.replaceAll('_', ' ') },
        };
      }
      default: {
        const page = PAGES[(h >>> 4) % PAGES.length] as string;
        const country = COUNTRIES[(h >>> 9) % COUNTRIES.length] as string;
        const value =
          name === 'purchase' || name === 'add_to_cart' ? ((h % 20_000) / 100 + 5).toFixed(2) : page;
        return { timestamp, name, source: platform, value, userID, metadata: { platform, page, country } };
      }
    }
  };

  /** An out-of-order event: give up the compact form once (if it is older than the seed) and insert it in place. */
  function insertInPlace(record: EventRecord, ts: number, baseMax: number): void {
    if (ts < baseMax) {
      const materialized: EventRecord[] = [];
      for (let i = 0; i < base.n; i++) materialized.push(materialize(i));
      added = [...materialized, ...added];
      base.n = 0;
    }
    let lo = 0;
    let hi = added.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Number((added[mid] as EventRecord).timestamp) <= ts) lo = mid + 1;
      else hi = mid;
    }
    added.splice(lo, 0, record);
  }

  const store: EventStore = {
    get total() {
      return base.n + added.length;
    },
    order: options.order,
    slice(offset, limit) {
      const total = store.total;
      const out: EventRecord[] = [];
      for (let k = Math.max(0, offset); k < Math.min(total, offset + limit); k++) {
        const p = store.order === 'oldest-first' ? k : total - 1 - k;
        // Seeded records are built fresh; appended ones are copied so callers cannot edit the log.
        out.push(p < base.n ? materialize(p) : structuredClone(added[p - base.n] as EventRecord));
      }
      return out;
    },
    all() {
      return store.slice(0, store.total);
    },
    append(events) {
      for (const e of events) {
        const record: EventRecord = {
          timestamp: String(e.timestamp),
          name: e.name,
          source: e.source ?? 'sandbox',
          value: e.value ?? '',
          userID: e.userID ?? '',
          metadata: structuredClone(e.metadata ?? {}),
        };
        const ts = Number(record.timestamp);
        const lastAdded = added.at(-1);
        const baseMax = base.n > 0 ? (base.ts[base.n - 1] as number) : Number.NEGATIVE_INFINITY;
        const inOrder = ts >= baseMax && (lastAdded === undefined || ts >= Number(lastAdded.timestamp));
        if (inOrder || options.listing === 'arrival') {
          added.push(record);
          continue;
        }
        insertInPlace(record, ts, baseMax);
      }
    },
  };
  return store;
}

function generate(count: number, now: number, rng: Rng, world: EventWorld): Columns {
  const n = Math.max(0, Math.floor(count));
  const ts = new Float64Array(n);
  for (let i = 0; i < n; i++) ts[i] = now - 1 - Math.floor(rng.next() * 90 * DAY);
  ts.sort();
  const kind = new Uint8Array(n);
  const aux = new Uint16Array(n);
  const quietBefore = now - world.quietSinceDays * DAY;
  const recent = now - 2 * DAY;
  for (let i = 0; i < n; i++) {
    const t = ts[i] as number;
    const r = rng.next();
    const s = rng.next();
    if (r < 0.4) {
      kind[i] = K_EXPOSURE;
      // Quiet configs were exposed once in a while, but only before their quiet period.
      if (t < quietBefore && world.quietConfigs.length > 0 && s < 0.06) {
        aux[i] = world.exposedConfigs.length + Math.floor((s / 0.06) * world.quietConfigs.length);
      } else {
        aux[i] = Math.floor(s * world.exposedConfigs.length);
      }
    } else if (r < 0.43 && world.triggerIds.length > 0) {
      kind[i] = K_CHECKS;
      const pool =
        t >= recent && world.canaryTriggerIds.length > 0 ? world.canaryTriggerIds : world.triggerIds;
      aux[i] = world.triggerIds.indexOf(pool[Math.floor(s * pool.length)] as string);
    } else if (r < 0.445 && world.experimentIds.length > 0) {
      kind[i] = K_EXP_STARTED;
      aux[i] = Math.floor(s * world.experimentIds.length);
    } else if (r < 0.46 && world.experimentIds.length > 0) {
      kind[i] = K_EXP_STOPPED;
      aux[i] = Math.floor(s * world.experimentIds.length);
    } else {
      kind[i] = Math.floor(s * PRODUCT_EVENTS.length);
    }
  }
  // Every canary trigger has a recent "checks passed" event, so a sweeper run finds work.
  world.canaryTriggerIds.forEach((id, j) => {
    const i = n - 1 - (j * 7 + 3);
    if (i >= 0) {
      kind[i] = K_CHECKS;
      aux[i] = world.triggerIds.indexOf(id);
    }
  });
  return { ts, kind, aux, n };
}
