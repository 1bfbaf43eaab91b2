/**
 * `--local`: the running local stack's endpoints (AUTOPILOT_ENDPOINTS_FILE, else the checkout's
 * `.local/endpoints.json`, where `npm start` writes it).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  DEFAULT_ENDPOINTS_FILE,
  type Endpoints,
  REPO_ROOT,
  readEndpoints,
  StackNotRunningError,
} from '../local/endpoints.js';
import { CommandError } from './errors.js';
import type { CliIo } from './io.js';

/**
 * A stack that is not running is an answer for the operator (start it), not a crash to name.
 * `needs`: the endpoints the command talks to. One missing would leave its SDK client without an
 * endpoint, that is on the AWS the shell is configured for: `--local` must never get there.
 */
export function localEndpoints(io: CliIo, needs: ReadonlyArray<keyof Endpoints> = []): Endpoints {
  const file = io.env.AUTOPILOT_ENDPOINTS_FILE ?? defaultEndpointsFile(io.cwd);
  let endpoints: Endpoints;
  try {
    endpoints = readEndpoints(file);
  } catch (error) {
    if (error instanceof StackNotRunningError) throw new CommandError(error.message);
    throw error;
  }
  const missing = needs.filter((key) => typeof endpoints[key] !== 'string' || endpoints[key] === '');
  if (missing.length > 0)
    throw new CommandError(
      `${file} is not a local stack's endpoints file (no ${missing.join(', ')}): --local never falls back to AWS. ` +
        'Start the stack with `npm start` (it writes the file), then try again.',
    );
  return endpoints;
}

const PACKAGE_NAME = 'console-autopilot';

/** A console-autopilot checkout's root: its package.json names the package. */
function isCheckout(dir: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name ===
      PACKAGE_NAME
    );
  } catch {
    return false;
  }
}

/**
 * The checkout's `.local/endpoints.json`: the nearest console-autopilot package at or above the
 * working directory, else the one the CLI runs from when that is a checkout (the tsx CLI started
 * from elsewhere). Not `import.meta.url` alone: in the bundled CLI (dist/autopilot.mjs, or a copy
 * anywhere) REPO_ROOT is wherever the file lies two levels down from, never the stack's checkout.
 */
function defaultEndpointsFile(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (isCheckout(dir)) return join(dir, '.local', 'endpoints.json');
    if (dirname(dir) === dir) break;
  }
  if (isCheckout(REPO_ROOT)) return DEFAULT_ENDPOINTS_FILE;
  throw new CommandError(
    `--local: no ${PACKAGE_NAME} checkout at or above ${cwd}, so no .local/endpoints.json of a running stack. ` +
      'Run the command in the repository where `npm start` runs, or set AUTOPILOT_ENDPOINTS_FILE to its file.',
  );
}
