/**
 * `npm start`: the whole system on one machine (see README, "Local stack"). Reads the
 * documented environment, boots the stack, prints the banner, writes `.local/endpoints.json`
 * and stops cleanly on Ctrl-C: polling stops, the in-flight batch finishes, servers close.
 * The functions' JSON lines go to `.local/logs/`; the terminal keeps the banner, the "to Slack"
 * blocks and the warn and error lines in short (`AUTOPILOT_LOCAL_LOGS=all`: every line).
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { resolve } from 'node:path';
import { integerEnv, logLevelEnv, optionalEnv } from '../config/env.js';
import { createLogger, type Logger } from '../observability/logger.js';
import { MAX_RECEIVE_COUNT } from '../queue/redrive.js';
import { faultsFromEnv } from '../sandbox/index.js';
import { RESPECT_REVIEW_SETTINGS_VARIABLE, respectReviewSettingsFromEnv } from '../wiring/review-settings.js';
import { renderBanner } from './banner.js';
import { REPO_ROOT } from './endpoints.js';
import { createLocalLogs, terminalLogsEnv } from './logs.js';
import { bootLocalStack, MAX_TIMER_SECONDS } from './stack.js';

/** The named variables that are set, read from the process's environment (never written). */
function pick(...names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => (optionalEnv(name) ? [[name, optionalEnv(name) as string]] : [])),
  );
}

async function main(): Promise<void> {
  // Every value is checked before anything starts: a bad one stops `npm start` with its name.
  logLevelEnv();
  respectReviewSettingsFromEnv();
  const terminalLogs = terminalLogsEnv();
  const port = integerEnv('PORT', 8787, process.env, { max: 65_535 });
  // Past MAX_TIMER_SECONDS Node's timers fire every millisecond: refused rather than a busy loop.
  const sweepIntervalSeconds = integerEnv('SWEEP_INTERVAL_SECONDS', 60, process.env, {
    max: MAX_TIMER_SECONDS,
  });
  // As deployed: six times the worker's 60 s timeout. Lower it to see failed records come back sooner.
  // SQS takes at most 12 hours.
  const visibilityTimeoutSeconds = integerEnv('VISIBILITY_TIMEOUT_SECONDS', 360, process.env, {
    max: 43_200,
  });
  const consoleApiBaseUrl = optionalEnv('CONSOLE_API_BASE_URL');
  const consoleApiKey = optionalEnv('CONSOLE_API_KEY');
  const signingSecret = optionalEnv('SLACK_SIGNING_SECRET');
  const policyPath = optionalEnv('AUTOPILOT_POLICY');
  // Tests point this elsewhere so that they never touch a developer's running stack.
  const stateDir = resolve(optionalEnv('AUTOPILOT_STATE_DIR') ?? resolve(REPO_ROOT, '.local'));
  // The stack's own lines (sweeps, the event source) beside the functions'.
  const logs = createLocalLogs({ dir: resolve(stateDir, 'logs'), terminal: terminalLogs });
  const log: Logger = createLogger({ service: 'local-stack', sink: logs.sink('local-stack') });

  // The documented variables the stack does not set itself reach the functions as given.
  const passed = {
    ...pick('LOG_LEVEL', 'SWEEPER_PAGE_SIZE', RESPECT_REVIEW_SETTINGS_VARIABLE),
    ...(consoleApiBaseUrl ? pick('CONSOLE_READ_ONLY_API_KEY') : {}),
  };
  const stack = await bootLocalStack({
    port,
    env: passed,
    ...(consoleApiBaseUrl ? { consoleApiBaseUrl } : {}),
    ...(consoleApiKey ? { consoleApiKey } : {}),
    ...(signingSecret ? { signingSecret } : {}),
    ...(policyPath ? { policyPath } : {}),
    // SANDBOX_ERROR_RATE, SANDBOX_HANG_RATE... (see src/sandbox/faults.ts) make the sandbox misbehave.
    sandbox: { faults: faultsFromEnv() },
    sweepIntervalSeconds: sweepIntervalSeconds === 0 ? false : sweepIntervalSeconds,
    queue: { visibilityTimeoutSeconds, maxReceiveCount: MAX_RECEIVE_COUNT },
    stateDir,
    writeEndpointsFile: true,
    logs,
    logger: log,
  });

  process.stdout.write(
    renderBanner(stack, {
      sweepIntervalSeconds: sweepIntervalSeconds === 0 ? false : sweepIntervalSeconds,
      visibilityTimeoutSeconds,
      endpointsFile: resolve(stateDir, 'endpoints.json'),
      sandboxKey: !consoleApiBaseUrl,
    }),
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write('\nforced exit\n');
      process.exit(130);
    }
    stopping = true;
    process.stderr.write(`\n${signal}: stopping (finishing the in-flight batch)…\n`);
    stack.stop().then(
      () => {
        process.stderr.write('stopped.\n');
        process.exit(0);
      },
      (error: unknown) => {
        log.error('stopping failed', { error });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  // The policy's zod paths and missing variables are in the message: print it plainly.
  const inUse = (error as { code?: string }).code === 'EADDRINUSE';
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `npm start failed: ${message}${inUse ? ' (another process has the port: set PORT=<free port>)' : ''}\n`,
  );
  process.exit(1);
});
