/**
 * README "Environment": "A value that cannot be used — not a number, out of its range, an unknown
 * `LOG_LEVEL`, a missing key — stops the function (or `npm start`) at start with an error naming the
 * variable". A `CONSOLE_API_BASE_URL` that is no URL (`console.example.com`, a host without its
 * scheme) stopped the function with `baseUrl must be an http(s) URL`, naming no variable (an
 * operator greps the environment for "baseUrl" in vain), and `https://` with no host was not refused
 * at all: every call failed later, at its first request. The three functions are built from the
 * environment as their entry points build them.
 */
import { describe, expect, it } from 'vitest';
import { sweeperDepsFromEnv, webhookDepsFromEnv, workerDepsFromEnv } from '../../src/wiring/from-env.js';

const env = {
  STATE_TABLE_NAME: 'autopilot-state',
  ACTIONS_QUEUE_URL: 'http://sqs.us-east-1.localhost:4566/000000000000/autopilot-actions',
  DLQ_URL: 'http://sqs.us-east-1.localhost:4566/000000000000/autopilot-actions-dlq',
  CONSOLE_API_KEY: 'key',
  SLACK_SIGNING_SECRET: 'signing-secret',
  WEBHOOK_REQUESTER_KEY: 'a'.repeat(64),
  SWEEPER_REQUESTER_KEY: 'b'.repeat(64),
  AWS_REGION: 'us-east-1',
};

const build = {
  webhook: webhookDepsFromEnv,
  worker: workerDepsFromEnv,
  sweeper: sweeperDepsFromEnv,
} as const;

describe('CONSOLE_API_BASE_URL that cannot be used', () => {
  for (const [fn, deps] of Object.entries(build)) {
    it.each([['console.example.com'], ['https://'], ['ftp://console.example.com'], ['https://exa mple.com']])(
      `stops the ${fn} at start, naming the variable (%s)`,
      (value) => {
        expect(() => deps({ ...env, CONSOLE_API_BASE_URL: value })).toThrow(/CONSOLE_API_BASE_URL/);
      },
    );

    it(`still starts the ${fn} with a usable one`, () => {
      expect(() => deps({ ...env, CONSOLE_API_BASE_URL: 'https://console.example.com/' })).not.toThrow();
      expect(() => deps({ ...env, CONSOLE_API_BASE_URL: 'http://127.0.0.1:4010' })).not.toThrow();
    });
  }
});
