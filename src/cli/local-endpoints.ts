/** `--local`: the running local stack's endpoints (`.local/endpoints.json`, or AUTOPILOT_ENDPOINTS_FILE). */
import {
  DEFAULT_ENDPOINTS_FILE,
  type Endpoints,
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
  const file = io.env.AUTOPILOT_ENDPOINTS_FILE ?? DEFAULT_ENDPOINTS_FILE;
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
