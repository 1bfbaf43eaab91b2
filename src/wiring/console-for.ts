/**
 * The Console API client of every function, built here only (src/wiring/from-env.ts). Its key
 * comes from the secrets; after a 401 the client asks again and the secret is re-read first (at
 * most once a minute), so a rotated key is used at once. Only the worker mutates; the others read
 * with `consoleReadOnlyApiKey`. The worker's mutations respect the platform's review settings
 * unless `CONSOLE_RESPECT_REVIEW_SETTINGS=false` (src/wiring/review-settings.ts).
 *
 * Each function is handed only the resources it calls, built on the same transport as the whole
 * client: a resource nobody references is left out of that function's bundle with its zod
 * schemas, bytes that V8 would otherwise parse at every cold start (bench/cold-start.bench.ts).
 */
import { httpUrlEnv } from '../config/env.js';
import {
  type ConsoleClient,
  type ConsoleClientOptions,
  createConsoleClient,
  createConsoleContext,
} from '../console/client.js';
import { dynamicConfigsResource } from '../console/resources/dynamic-configs.js';
import { eventsResource } from '../console/resources/events.js';
import { experimentsResource } from '../console/resources/experiments.js';
import { metricsResource } from '../console/resources/metrics.js';
import { releasePipelineTriggersResource } from '../console/resources/release-pipeline-triggers.js';
import { rolesResource } from '../console/resources/roles.js';
import { segmentsResource } from '../console/resources/segments.js';
import { consoleApiMetrics, type Metrics } from '../observability/metrics.js';
import type { FunctionRole, SecretsProvider } from '../secrets/secrets.js';
import { respectReviewSettingsFromEnv } from './review-settings.js';

type Env = Record<string, string | undefined>;
type Options = Omit<ConsoleClientOptions, 'baseUrl' | 'apiKey'>;

function consoleOptionsFor(
  role: FunctionRole,
  env: Env,
  secrets: SecretsProvider,
  options: Options,
  metrics: Metrics | undefined,
): ConsoleClientOptions {
  return {
    baseUrl: httpUrlEnv('CONSOLE_API_BASE_URL', env),
    apiKey: async ({ afterUnauthorized }) => {
      if (afterUnauthorized) await secrets.refresh().catch(() => false);
      const values = await secrets.get();
      return role === 'worker' ? values.consoleApiKey : values.consoleReadOnlyApiKey || values.consoleApiKey;
    },
    ...(metrics ? { observe: consoleApiMetrics(metrics) } : {}),
    // Read at wiring, so a bad value stops the cold start. The others never mutate: no header to send.
    ...(role === 'worker' ? { respectReviewSettings: respectReviewSettingsFromEnv(env) } : {}),
    ...options,
  };
}

/** The whole client (every resource), as a function's key and options make it. */
export function consoleClientFor(
  role: FunctionRole,
  env: Env,
  secrets: SecretsProvider,
  options: Options = {},
  metrics?: Metrics,
): ConsoleClient {
  return createConsoleClient(consoleOptionsFor(role, env, secrets, options, metrics));
}

/** The webhook's reads (src/webhook/reads.ts): it never mutates (the worker does, within the budget). */
export function webhookConsole(env: Env, secrets: SecretsProvider, options: Options, metrics?: Metrics) {
  const context = createConsoleContext(consoleOptionsFor('webhook', env, secrets, options, metrics));
  return {
    roles: rolesResource(context),
    segments: segmentsResource(context),
    metrics: metricsResource(context),
    events: eventsResource(context),
  };
}

/** The worker's three mutations (src/worker/execute.ts `MutationClient`). */
export function workerConsole(env: Env, secrets: SecretsProvider, options: Options, metrics?: Metrics) {
  const context = createConsoleContext(consoleOptionsFor('worker', env, secrets, options, metrics));
  return {
    releasePipelineTriggers: releasePipelineTriggersResource(context),
    experiments: experimentsResource(context),
    dynamicConfigs: dynamicConfigsResource(context),
  };
}

/** The sweeper's one call: the events list. */
export function sweeperEvents(env: Env, secrets: SecretsProvider, options: Options, metrics?: Metrics) {
  return eventsResource(createConsoleContext(consoleOptionsFor('sweeper', env, secrets, options, metrics)));
}
