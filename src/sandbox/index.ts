/**
 * The Console API sandbox: a second, independent reading of the spec that serves all 13
 * operations locally (tests, benchmarks, the local stack). Never imported by functions/.
 */

export { sandboxOptionsFromEnv } from './env-config.js';
export type { FaultConfig, MalformedKind } from './faults.js';
export { faultsFromEnv, NO_FAULTS } from './faults.js';
export type { RateLimitConfig } from './rate-limit.js';
export { PLATFORM_LIMITS } from './rate-limit.js';
export type { LoggedRequest, Sandbox, SandboxOptions } from './sandbox.js';
export { API_PREFIX, createSandbox, DEFAULT_API_KEY, DEFAULT_EVENT_COUNT, DEFAULT_SEED } from './sandbox.js';
export type { SandboxState } from './seed.js';
export { PERMISSION_KEYS } from './seed.js';
export type { RunningSandbox, StartSandboxOptions } from './server.js';
export { startSandbox } from './server.js';
export type * from './types.js';
