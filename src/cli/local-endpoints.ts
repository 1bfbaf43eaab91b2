/** `--local`: the running local stack's endpoints (`.local/endpoints.json`, or AUTOPILOT_ENDPOINTS_FILE). */
import {
  DEFAULT_ENDPOINTS_FILE,
  type Endpoints,
  readEndpoints,
  StackNotRunningError,
} from '../local/endpoints.js';
import { CommandError } from './errors.js';
import type { CliIo } from './io.js';

/** A stack that is not running is an answer for the operator (start it), not a crash to name. */
export function localEndpoints(io: CliIo): Endpoints {
  try {
    return readEndpoints(io.env.AUTOPILOT_ENDPOINTS_FILE ?? DEFAULT_ENDPOINTS_FILE);
  } catch (error) {
    if (error instanceof StackNotRunningError) throw new CommandError(error.message);
    throw error;
  }
}
