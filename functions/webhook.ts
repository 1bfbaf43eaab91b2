/**
 * Lambda entry point of the Slack webhook (API Gateway HTTP/REST API or a Function URL).
 * Thin on purpose: dependencies are built from the environment once per container, and the
 * policy is validated here at init, so a bad policy fails the cold start with its zod path.
 */
import { handle } from 'hono/aws-lambda';
import { createWebhookApp } from '../src/webhook/app.js';
import { webhookDepsFromEnv } from '../src/webhook/from-env.js';

export const app = createWebhookApp(webhookDepsFromEnv());
export const handler = handle(app);
