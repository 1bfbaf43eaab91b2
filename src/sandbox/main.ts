/**
 * `npm run sandbox`: the Console API sandbox as a standalone server, configured by environment
 * (see env-config.ts and faults.ts). Prints a banner; Ctrl-C or SIGTERM stops it cleanly.
 */
import { sandboxOptionsFromEnv } from './env-config.js';
import { PLATFORM_LIMITS, type RateLimitConfig } from './rate-limit.js';
import { API_PREFIX } from './sandbox.js';
import type { RunningSandbox, StartSandboxOptions } from './server.js';
import { startSandbox } from './server.js';

/** A bad variable or a taken port ends `npm run sandbox` with one line naming it, not a stack trace. */
function fail(error: unknown): never {
  const inUse = (error as { code?: string }).code === 'EADDRINUSE';
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `npm run sandbox failed: ${message}${inUse ? ' (another process has the port: set SANDBOX_PORT=<free port>)' : ''}\n`,
  );
  process.exit(1);
}

let options: StartSandboxOptions & { port: number };
let running: RunningSandbox;
try {
  options = sandboxOptionsFromEnv();
  running = await startSandbox(options);
} catch (error) {
  fail(error);
}

function describeLimits(limits: false | RateLimitConfig | undefined): string {
  if (limits === false) return 'off';
  const { limits: windows, retryAfter = true } = limits ?? PLATFORM_LIMITS;
  const text = windows.map((w) => `${w.max} mutations / ${w.perMs} ms`).join(' and ');
  return `${text} per project${retryAfter ? '' : ', 429 without Retry-After'}`;
}
const { state } = running.sandbox;
const faults = Object.entries(options.faults ?? {})
  .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
  .join(', ');

process.stdout.write(
  [
    '',
    'Console API sandbox',
    `  base URL      ${running.url}   (paths under ${API_PREFIX})`,
    `  API key       ${(options.apiKeys ?? []).join(', ')}   (header SERVICE-API-KEY)`,
    `  serves        roles ${state.roles.size}, segments ${state.segments.size}, metric sources ${state.metricSources.size}, metrics ${state.metrics.size},`,
    `                experiments ${state.experiments.size}, triggers ${state.triggers.size}, dynamic configs ${state.configs.size}, teams ${state.teams.size}, events ${state.events.total} (${state.events.order})`,
    `  rate limits   ${describeLimits(options.rateLimits)}`,
    `  faults        ${faults || 'none'}`,
    `  try           curl -H 'SERVICE-API-KEY: ${options.apiKeys?.[0] ?? ''}' ${running.url}${API_PREFIX}/segments?limit=2`,
    '',
  ].join('\n'),
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`\n${signal}: stopping the sandbox\n`);
  running.close().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`sandbox did not close cleanly: ${String(err)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
