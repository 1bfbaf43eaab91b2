/**
 * The typed Console Management API client: createConsoleClient, its error tree, every type
 * and every schema (as the function that builds it on first use: `segmentSchema()`). Imports nothing from AWS, the sandbox or the local stack, so it works
 * from a Lambda, a CLI or a test.
 */

export type { ApiKeyProvider, ApiObservation, RequestOptions } from './call.js';
export { type ConsoleClient, type ConsoleClientOptions, createConsoleClient } from './client.js';
export * from './errors.js';
export { DEFAULT_MAX_PAGES, type Page, PagePromise, resolvePageLink } from './pagination.js';
export { encodeSegment, path } from './path.js';
export {
  type AcquireOptions,
  budgetTimeout,
  type Clock,
  clockOf,
  DEFAULT_MUTATION_LIMITS,
  type MutationBudget,
  MutationLimiter,
  type Release,
  type WindowLimit,
} from './rate-limiter.js';
export { backoffDelay, parseRetryAfter, type RetryMode, shouldRetry } from './retry.js';
export * from './schemas/index.js';
