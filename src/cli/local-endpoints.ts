/** `--local`: the running local stack's endpoints (`.local/endpoints.json`, or AUTOPILOT_ENDPOINTS_FILE). */
import { DEFAULT_ENDPOINTS_FILE, type Endpoints, readEndpoints } from '../local/endpoints.js';
import type { CliIo } from './io.js';

export function localEndpoints(io: CliIo): Endpoints {
  return readEndpoints(io.env.AUTOPILOT_ENDPOINTS_FILE ?? DEFAULT_ENDPOINTS_FILE);
}
