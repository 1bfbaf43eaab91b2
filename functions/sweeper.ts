/**
 * Lambda entry point of the sweeper (EventBridge schedule). Thin: the policy is loaded at cold
 * start (validated with zod when this bundle was built and trusted by its SHA-256; any other
 * policy file is validated here, so an invalid one fails the init with its zod path: see
 * src/wiring/policy-file.ts); the dependencies are built from the environment once per container; each
 * invocation gets the time it has left from the Lambda context, so the run stops with a margin
 * and saves progress (src/sweeper/handler.ts).
 */
import { withInvocation } from '../src/observability/invocation.js';
import { sweeperHandler } from '../src/sweeper/handler.js';
import { createSweeper } from '../src/sweeper/sweeper.js';
import { sweeperDepsFromEnv } from '../src/wiring/from-env.js';

export const handler = withInvocation(sweeperHandler(createSweeper(sweeperDepsFromEnv())));
