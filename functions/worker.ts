/**
 * Lambda entry point of the action worker (SQS → `{ batchItemFailures }`; the release tick's
 * scheduled event → the held requests it sent back). Thin: the policy is
 * loaded at cold start. It was validated with zod when this bundle was built, and the bundle
 * trusts exactly those bytes (by their SHA-256); any other policy file is validated here, so an
 * invalid one fails the init with its zod path (src/wiring/policy-file.ts). Everything else lives in
 * src/worker.
 */
import { withInvocation } from '../src/observability/invocation.js';
import { workerDepsFromEnv } from '../src/wiring/from-env.js';
import { createWorkerEntry } from '../src/worker/worker.js';

export const handler = withInvocation(createWorkerEntry(workerDepsFromEnv()));
