/**
 * `.local/endpoints.json`: where a running local stack can be reached. `npm start` writes it
 * (and removes it on exit); the demo and the CLI's `--local` read it.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: the default policy file and `.local/` are resolved from here. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface Endpoints {
  webhookUrl: string;
  consoleApiBaseUrl: string;
  sqsEndpoint: string;
  queueUrl: string;
  dlqUrl: string;
  dynamodbEndpoint: string;
  tableName: string;
  /** Beyond the documented endpoints list, added for the demo: where the Slack receiver listens. */
  slackReceiverUrl: string;
  /** The functions' metric lines since the stack started (`autopilot stats --local`). */
  metricsFile?: string;
  /** The functions' JSON lines (logs and metrics) since the stack started, one `<function>.jsonl` each. */
  logsDir?: string;
  /** The policy file the stack runs (absolute): the CLI's `--local` plans and checks with it. */
  policyFile?: string;
  /**
   * With the embedded sandbox: its read-only key, a fixed public value (not a secret). `--local`
   * reads with it, never with a Console API key still exported in the shell for a real platform.
   */
  sandboxReadOnlyApiKey?: string;
}

export const DEFAULT_ENDPOINTS_FILE = resolve(REPO_ROOT, '.local', 'endpoints.json');

export class StackNotRunningError extends Error {
  override name = 'StackNotRunningError';
}

/** The running stack's endpoints, or an error that says to start it. */
export function readEndpoints(file = DEFAULT_ENDPOINTS_FILE): Endpoints {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new StackNotRunningError(
      `the local stack is not running (no ${file}). Start it in another terminal with \`npm start\`, then try again.`,
    );
  }
  // Empty, half-written or from another tool: said so, not a SyntaxError or an SDK call to `undefined`.
  let parsed: Partial<Record<keyof Endpoints, unknown>> | undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const missing = REQUIRED_ENDPOINTS.filter((key) => typeof parsed?.[key] !== 'string');
  if (missing.length > 0) {
    throw new StackNotRunningError(
      `${file} is not a local stack's endpoints file (${parsed ? `no ${missing.join(', ')}` : 'not JSON'}). ` +
        'Start the stack with `npm start` (it writes the file), then try again.',
    );
  }
  return parsed as Endpoints;
}

/** A stack's file always has `webhookUrl`; `{}` or another tool's JSON has not. */
const REQUIRED_ENDPOINTS = ['webhookUrl'] as const satisfies ReadonlyArray<keyof Endpoints>;

/** Resolves when the stack answers; a clear error when the file is stale (stack killed hard). */
export async function assertStackAnswers(endpoints: Endpoints, timeoutMs = 2_000): Promise<void> {
  try {
    await fetch(`${endpoints.slackReceiverUrl}/posts?since=${Number.MAX_SAFE_INTEGER}`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    throw new StackNotRunningError(
      'the local stack does not answer (.local/endpoints.json is left from a stack that was killed). ' +
        'Start it with `npm start`, then try again.',
    );
  }
}

/**
 * Refuses to start a second stack over a running one's state directory: it would empty the
 * running stack's metrics file, replace its endpoints file and remove it on exit, leaving the
 * demo and `--local` saying "not running" while it runs. A stale file (stack killed) is no obstacle.
 */
export async function assertNoStackRunning(file: string | undefined): Promise<void> {
  if (file === undefined) return;
  let endpoints: Endpoints;
  try {
    endpoints = readEndpoints(file);
    await assertStackAnswers(endpoints, 1_000);
  } catch {
    return;
  }
  throw new Error(
    `a local stack is already running (webhook ${endpoints.webhookUrl}, see ${file}): ` +
      'stop it (Ctrl-C in its terminal) before starting another',
  );
}
