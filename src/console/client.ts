/**
 * `createConsoleClient`: one object with a resource per API area and a method per
 * operation (all 13 of spec part 4). Options beat defaults; nothing is read from the
 * environment here (the caller does that once, at the edge), so the client works from a
 * Lambda, a CLI or a test alike.
 */
import { fetchSend } from '../http/fetch-send.js';
import { createNodeSend } from '../http/send.js';
import type { Logger } from '../observability/logger.js';
import type { ApiKeyProvider, ApiObservation } from './call.js';
import { Transport } from './http.js';
import { DEFAULT_MAX_PAGES } from './pagination.js';
import {
  type Clock,
  DEFAULT_MUTATION_LIMITS,
  type MutationBudget,
  MutationLimiter,
  type WindowLimit,
} from './rate-limiter.js';
import { dynamicConfigsResource } from './resources/dynamic-configs.js';
import { eventsResource } from './resources/events.js';
import { experimentsResource } from './resources/experiments.js';
import { metricSourcesResource } from './resources/metric-sources.js';
import { metricsResource } from './resources/metrics.js';
import { releasePipelineTriggersResource } from './resources/release-pipeline-triggers.js';
import { rolesResource } from './resources/roles.js';
import { segmentsResource } from './resources/segments.js';
import type { ResourceContext } from './resources/shared.js';
import { teamsResource } from './resources/teams.js';
import { sleep } from './response.js';

export interface ConsoleClientOptions {
  /** Origin plus any path prefix; `/console/v1/...` is appended. */
  baseUrl: string;
  /** The `SERVICE-API-KEY`, or a function asked for it per call (and once more after a 401). */
  apiKey: ApiKeyProvider;
  /**
   * Send through this fetch instead of the built-in `node:http(s)` sender (which is faster
   * and its first request in a cold process is ~30 ms sooner: see src/http/send.ts).
   */
  fetch?: typeof fetch;
  /** Per attempt. Default 10 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** Send `x-respect-review-settings: true` on mutations. Default false. */
  respectReviewSettings?: boolean;
  /**
   * Limits on this client's mutations, waited for rather than exceeded. Default 100 per 10 s
   * and 900 per 15 min in this process; `false` disables the budget; a `MutationBudget` (e.g.
   * one shared by several processes) is used as given. Reads are never limited.
   */
  mutationBudget?: false | { limits: WindowLimit[] } | MutationBudget;
  /**
   * Cap on any single wait between attempts. A Retry-After longer than this ends the call at once
   * (a retry sent sooner would only be refused again). Default 30 000 ms.
   */
  maxRetryDelayMs?: number;
  /** Bound on pages followed by auto-pagination. Default 1000. */
  maxPages?: number;
  /** Retries and pagination stops are logged here (never the key). */
  logger?: Logger;
  /** Told of each attempt's answer and latency and of each budget wait (metrics). */
  observe?: (observation: ApiObservation) => void;
  /** Injectable for tests: jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** Injectable for tests: the wait between attempts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable for tests: clock for deadlines and the mutation budget. */
  clock?: Clock;
}

export type ConsoleClient = ReturnType<typeof createConsoleClient>;

/**
 * Creates a Console API client.
 *
 * @example
 * const client = createConsoleClient({
 *   baseUrl: 'https://api.example.com',
 *   apiKey: async ({ afterUnauthorized }) => {
 *     if (afterUnauthorized) await secrets.refresh(); // a rotated key
 *     return (await secrets.get()).consoleApiKey;
 *   },
 *   respectReviewSettings: true,
 * });
 * const trigger = await client.releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_2' },
 *   { deadline: Date.now() + context.getRemainingTimeInMillis() - 1_000 });
 */
export function createConsoleClient(options: ConsoleClientOptions) {
  const context = createConsoleContext(options);
  return {
    roles: rolesResource(context),
    dynamicConfigs: dynamicConfigsResource(context),
    segments: segmentsResource(context),
    experiments: experimentsResource(context),
    metricSources: metricSourcesResource(context),
    metrics: metricsResource(context),
    events: eventsResource(context),
    releasePipelineTriggers: releasePipelineTriggersResource(context),
    teams: teamsResource(context),
    /** This client's mutation budget (undefined when disabled), e.g. to watch its backlog. */
    mutationBudget: context.mutationBudget,
  };
}

/**
 * What every resource of a client is built on (the transport, its budget, the page bound), for
 * a caller that builds only the resources it calls (`eventsResource(context)`): a bundle then
 * holds only those resources and their schemas (src/wiring/console-for.ts).
 */
export function createConsoleContext(
  options: ConsoleClientOptions,
): ResourceContext & { mutationBudget: MutationBudget | undefined } {
  const clock = options.clock;
  const limiter = budgetOf(options.mutationBudget, clock);
  const transport = new Transport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    send: options.fetch ? fetchSend(options.fetch) : createNodeSend(),
    timeoutMs: positive('timeoutMs', options.timeoutMs ?? 10_000),
    maxRetries: nonNegativeInteger('maxRetries', options.maxRetries ?? 2),
    maxRetryDelayMs: positive('maxRetryDelayMs', options.maxRetryDelayMs ?? 30_000),
    respectReviewSettings: options.respectReviewSettings ?? false,
    limiter,
    random: options.random ?? Math.random,
    sleep: options.sleep ?? sleep,
    now: clock ? () => clock.now() : Date.now,
    logger: options.logger,
    observe: options.observe,
  });
  return {
    transport,
    maxPages: positive('maxPages', options.maxPages ?? DEFAULT_MAX_PAGES),
    logger: options.logger,
    mutationBudget: limiter,
  };
}

function budgetOf(option: ConsoleClientOptions['mutationBudget'], clock: Clock | undefined) {
  if (option === false) return undefined;
  if (option && 'acquire' in option) return option;
  return new MutationLimiter(option?.limits ?? DEFAULT_MUTATION_LIMITS, clock);
}

function positive(name: string, value: number): number {
  if (!(value > 0)) throw new TypeError(`${name} must be positive`);
  return value;
}

function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer`);
  return value;
}
