/**
 * createSandbox: the Console Management API (all 13 operations of the spec) as a Hono app over
 * deterministic seeded state, with the real platform's auth, error bodies and mutation rate
 * limits, plus fault injection and a request log for tests. In-process use: `sandbox.app.request()`;
 * over HTTP: `startSandbox` (server.ts).
 *
 * Order of checks per request under /console/v1: latency → API key (401) → mutation rate
 * limit (429) → injected fault → JSON body (400) → route → (hang after effect).
 */
import { type Context, Hono } from 'hono';
import { decideFault, type FaultConfig, malformedResponse, NO_FAULTS } from './faults.js';
import { errorBody, SandboxHttpError } from './http.js';
import { createRng, type Rng } from './prng.js';
import { createRateLimiter, PLATFORM_LIMITS, type RateLimitConfig } from './rate-limit.js';
import { registerConfigs } from './routes/configs.js';
import type { Actor, ReviewMode, SandboxEnv } from './routes/env.js';
import { registerEvents } from './routes/events.js';
import { registerExperiments } from './routes/experiments.js';
import { registerMetrics } from './routes/metrics.js';
import { registerRoles } from './routes/roles.js';
import { registerSegments } from './routes/segments.js';
import { registerTeams } from './routes/teams.js';
import { registerTriggers } from './routes/triggers.js';
import { createSeedState, type SandboxState } from './seed.js';
import type { EventListing, EventOrder, NewEvent } from './types.js';

export const API_PREFIX = '/console/v1';
export const DEFAULT_API_KEY = 'sandbox-key';
export const DEFAULT_SEED = 20_261_122;
export const DEFAULT_EVENT_COUNT = 2000;

export type SandboxOptions = {
  /** Accepted `SERVICE-API-KEY` values. Default `['sandbox-key']`. */
  apiKeys?: string[];
  /** Keys that may read but get 403 on every mutation (to exercise permission errors). */
  readOnlyApiKeys?: string[];
  /** The request log keeps at most this many entries, dropping the oldest. Default 100,000. */
  requestLogLimit?: number;
  /** Seed of the state and of the fault sequence. */
  seed?: number;
  /** Clock for seeded timestamps, effects and rate windows. Default `Date.now`. */
  now?: () => number;
  /** Default `newest-first`. */
  eventOrder?: EventOrder;
  /** Default `timestamp`; `arrival` keeps events added later at the end whatever their stamp. */
  eventListing?: EventListing;
  /** Seeded events over the last 90 days. Default 2,000. */
  eventCount?: number;
  /** Mutation limits per project (all its keys share them). Default the platform's 100/10 s and 900/15 min; false disables. */
  rateLimits?: false | RateLimitConfig;
  faults?: Partial<FaultConfig>;
  /**
   * What an approve of a phase that requires review answers when it carries
   * `x-respect-review-settings: true` (the spec does not say): `approve` (default) moves the trigger
   * on as without the header; `wait` answers 200 with the trigger unchanged, its phase still current,
   * as a platform holding the phase for a human review could.
   */
  reviews?: ReviewMode;
};

export type LoggedRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  /** 0 while unanswered; stays 0 for a hang. */
  status: number;
  at: number;
  body?: unknown;
  /** Request headers without the API key. */
  headers: Record<string, string>;
  /** The injected fault, if any. */
  fault?: string;
};

export type Sandbox = {
  app: Hono<SandboxEnv>;
  /** Live state; `reset()` refills these same maps. */
  state: SandboxState;
  requests: LoggedRequest[];
  setFaults(f: Partial<FaultConfig>): void;
  setEventOrder(o: EventOrder): void;
  addEvents(events: ReadonlyArray<NewEvent>): void;
  /** Restores the seeded state, faults, event order, rate windows and fault sequence; clears the log. */
  reset(): void;
  /** Answers every hung request (503) so servers and tests can end. */
  releaseHangs(): void;
  /** How many requests are hanging right now (held unanswered by a hang fault). */
  readonly hanging: number;
  /** Resolves once at least `count` requests are hanging: a test's proof of a hang, without sleeping. */
  whenHanging(count?: number): Promise<void>;
  /** The moment the seeded state was anchored at. */
  readonly seededAt: number;
};

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The one project a sandbox is: every accepted key is one of its keys. */
const PROJECT = 'project';

function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.indexOf('?', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const now = options.now ?? Date.now;
  const seed = options.seed ?? DEFAULT_SEED;
  const readOnlyKeys = options.readOnlyApiKeys ?? [];
  const apiKeys = [...(options.apiKeys ?? [DEFAULT_API_KEY]), ...readOnlyKeys];
  const logLimit = Math.max(1, options.requestLogLimit ?? 100_000);
  const initialOrder = options.eventOrder ?? 'newest-first';
  const seededAt = now();
  const seedOptions = {
    seed,
    now: seededAt,
    eventCount: options.eventCount ?? DEFAULT_EVENT_COUNT,
    eventOrder: initialOrder,
    ...(options.eventListing ? { eventListing: options.eventListing } : {}),
  };
  const state = createSeedState(seedOptions);
  const requests: LoggedRequest[] = [];
  const initialFaults: FaultConfig = { ...NO_FAULTS, ...options.faults };
  let faults: FaultConfig = { ...initialFaults };
  let faultRng: Rng = createRng(seed ^ 0x5eed);
  const limiter =
    options.rateLimits === false ? undefined : createRateLimiter(options.rateLimits ?? PLATFORM_LIMITS, now);
  const retryAfterOnLimit = options.rateLimits === false ? false : (options.rateLimits?.retryAfter ?? true);
  const timeScale = options.rateLimits === false ? 1 : (options.rateLimits?.timeScale ?? 1);
  const hung = new Set<() => void>();
  const hangWatchers = new Set<{ count: number; resolve: () => void }>();
  const notifyHangWatchers = () => {
    for (const watcher of [...hangWatchers]) {
      if (hung.size >= watcher.count) {
        hangWatchers.delete(watcher);
        watcher.resolve();
      }
    }
  };

  const hang = (signal: AbortSignal): Promise<Response> =>
    new Promise<Response>((resolve) => {
      const release = () => {
        hung.delete(release);
        signal.removeEventListener('abort', release);
        resolve(new Response(JSON.stringify(errorBody(503, 'Sandbox closed.')), { status: 503 }));
      };
      hung.add(release);
      if (signal.aborted) release();
      else {
        signal.addEventListener('abort', release);
        notifyHangWatchers();
      }
    });

  const app = new Hono<SandboxEnv>();

  /** Logs the request (headers without the key, the body as sent); a body that is not JSON is kept as text. */
  async function logRequest(c: Context<SandboxEnv>): Promise<{ entry: LoggedRequest; invalidJson: boolean }> {
    // The path as sent (still percent-encoded), so tests can check how a client encoded it.
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, key) => {
      if (key !== 'service-api-key') headers[key] = value;
    });
    const entry: LoggedRequest = {
      method: c.req.method,
      path: rawPath(c.req.url),
      query: c.req.query(),
      status: 0,
      at: now(),
      headers,
    };
    if (requests.length >= logLimit) requests.splice(0, Math.ceil(logLimit / 10));
    requests.push(entry);
    let invalidJson = false;
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const text = await c.req.text();
      if (text !== '') {
        try {
          entry.body = JSON.parse(text);
        } catch {
          entry.body = text;
          invalidJson = true;
        }
      }
      c.set('body', entry.body);
    }
    return { entry, invalidJson };
  }

  /** The answer an injected fault gives instead of the route's (hangs are answered by `hang`). */
  function faultResponse(
    c: Context<SandboxEnv>,
    fault: ReturnType<typeof decideFault>,
  ): Response | undefined {
    switch (fault.kind) {
      case 'error':
        return c.json(errorBody(fault.status, 'Internal server error.'), fault.status);
      case 'rate-limit':
        if (fault.retryAfterSeconds !== null) c.header('Retry-After', String(fault.retryAfterSeconds));
        return c.json(errorBody(429, 'Too many requests.'), 429);
      case 'malformed':
        return malformedResponse(fault.body, fault.status);
      default:
        return undefined;
    }
  }

  /** 401 without a known key, 403 for a read-only key's change, 429 beyond the rate limits; else the actor is set. */
  function refusal(c: Context<SandboxEnv>, isMutation: boolean): Response | undefined {
    const key = c.req.header('SERVICE-API-KEY');
    const keyIndex = key === undefined ? -1 : apiKeys.indexOf(key);
    if (keyIndex < 0) return c.json(errorBody(401, 'Missing or invalid SERVICE-API-KEY header.'), 401);
    const actor: Actor = { actorName: `Console API key ${keyIndex + 1}`, actorID: `api_key_${keyIndex + 1}` };
    c.set('actor', actor);
    if (!isMutation) return undefined;
    if (readOnlyKeys.includes(key as string)) {
      return c.json(errorBody(403, 'This API key is not allowed to make changes.'), 403);
    }
    // The platform limits a project, not a key (FACTS.md), and every key here is the one project's:
    // during a key rotation both keys draw on one budget.
    const decision = limiter?.check(PROJECT);
    if (!decision || decision.ok) return undefined;
    if (retryAfterOnLimit) {
      c.header('Retry-After', String(Math.ceil(decision.retryAfterMs / 1000)));
      if (timeScale > 1) {
        const unitMs = 1000 / timeScale;
        c.header('retry-after-ms', String(Math.ceil(decision.retryAfterMs / unitMs) * unitMs));
      }
    }
    return c.json(
      errorBody(429, `Too many requests: at most ${decision.max} mutations per ${decision.perMs} ms.`),
      429,
    );
  }

  app.use('*', async (c, next) => {
    const { entry, invalidJson } = await logRequest(c);
    const path = entry.path;
    const respond = (res: Response) => {
      entry.status = res.status;
      return res;
    };

    if (!path.startsWith(`${API_PREFIX}/`)) {
      await next();
      entry.status = c.res.status;
      return;
    }

    const isMutation = MUTATIONS.has(c.req.method);
    const fault = decideFault(faultRng, faults, isMutation);
    if (fault.latencyMs > 0) await new Promise((r) => setTimeout(r, fault.latencyMs));

    const refused = refusal(c, isMutation);
    if (refused) return respond(refused);

    if (fault.kind !== 'none') entry.fault = fault.kind;
    if (fault.kind === 'hang') return hang(c.req.raw.signal);
    const faulty = faultResponse(c, fault);
    if (faulty) return respond(faulty);

    if (invalidJson) {
      return respond(
        c.json(
          errorBody(400, 'Request body is not valid JSON.', [
            { property: 'body', errorMessage: 'invalid JSON' },
          ]),
          400,
        ),
      );
    }

    await next();
    entry.status = c.res.status;
    if (fault.kind === 'hang-after-effect') {
      entry.status = 0;
      return hang(c.req.raw.signal);
    }
  });

  const api = new Hono<SandboxEnv>();
  const deps = { state, now, reviews: options.reviews ?? 'approve' };
  registerRoles(api, deps);
  registerConfigs(api, deps);
  registerSegments(api, deps);
  registerExperiments(api, deps);
  registerMetrics(api, deps);
  registerEvents(api, deps);
  registerTriggers(api, deps);
  registerTeams(api, deps);
  app.route(API_PREFIX, api);

  // The app's and the sub-app's errors and 404s use the same shapes.
  for (const routes of [app, api]) {
    routes.notFound((c) =>
      c.json(errorBody(404, `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`), 404),
    );
    routes.onError((err, c) => {
      if (err instanceof SandboxHttpError)
        return c.json(errorBody(err.status, err.message, err.errors), err.status);
      return c.json(errorBody(500, 'Internal server error.'), 500);
    });
  }

  return {
    app,
    state,
    requests,
    seededAt,
    setFaults(f) {
      faults = { ...faults, ...f };
    },
    setEventOrder(o) {
      state.events.order = o;
    },
    addEvents(events) {
      state.events.append(events);
    },
    reset() {
      const fresh = createSeedState(seedOptions);
      for (const key of [
        'roles',
        'configs',
        'segments',
        'metricSources',
        'metrics',
        'experiments',
        'triggers',
        'teams',
      ] as const) {
        const target = state[key] as Map<string, unknown>;
        target.clear();
        for (const [k, v] of fresh[key] as Map<string, unknown>) target.set(k, v);
      }
      state.events = fresh.events;
      requests.length = 0;
      faults = { ...initialFaults };
      faultRng = createRng(seed ^ 0x5eed);
      limiter?.reset();
    },
    releaseHangs() {
      for (const release of [...hung]) release();
    },
    get hanging() {
      return hung.size;
    },
    whenHanging(count = 1) {
      return new Promise<void>((resolve) => {
        hangWatchers.add({ count, resolve });
        notifyHangWatchers();
      });
    },
  };
}
