/**
 * Lambda entry point of the action worker (SQS → `{ batchItemFailures }`). Thin: the policy is
 * loaded and validated at cold start, so an invalid policy fails the init with the zod path;
 * everything else lives in src/worker.
 */
import { loadPolicyFile } from '../src/policy/load.js';
import { workerDepsFromEnv } from '../src/worker/env.js';
import { createWorker } from '../src/worker/worker.js';

const policy = loadPolicyFile();

export const handler = createWorker(workerDepsFromEnv(policy));
