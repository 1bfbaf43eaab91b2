/**
 * Lambda entry point of the Slack webhook (API Gateway HTTP/REST API or a Function URL).
 * Thin on purpose: dependencies are built from the environment once per container, the policy
 * among them. It was validated with zod when this bundle was built, and the bundle trusts
 * exactly those bytes (by their SHA-256); any other policy file is validated at init, so a bad
 * one fails the cold start with its zod path (src/wiring/policy-file.ts). The event reaches the
 * Hono app through our own adapter (src/webhook/lambda-adapter.ts, which says why).
 */
import { withInvocation } from '../src/observability/invocation.js';
import { createWebhookApp } from '../src/webhook/app.js';
import { handleLambda } from '../src/webhook/lambda-adapter.js';
import { webhookDepsFromEnv } from '../src/wiring/from-env.js';

const deps = webhookDepsFromEnv();
export const app = createWebhookApp(deps);
export const handler = withInvocation(handleLambda(app, { logger: deps.logger }));
