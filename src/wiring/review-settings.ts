/**
 * Whether the worker's mutations respect the platform's review settings: the Console client then
 * sends `x-respect-review-settings: true` on each (spec part 5). Without it a mutation bypasses
 * them, so a phase a team made "Require Review" would be approved by the API key alone. On unless
 * the operator turns it off (context `respectReviewSettings`, README "Deploy the stack"). One name
 * and one default for the stack (infra/autopilot-stack.ts), the local stack and the wiring.
 */
import { booleanEnv } from '../config/env.js';

export const RESPECT_REVIEW_SETTINGS_VARIABLE = 'CONSOLE_RESPECT_REVIEW_SETTINGS';

/** Respect them unless told otherwise: the safe default for a tool trusted with production changes. */
export const RESPECT_REVIEW_SETTINGS_DEFAULT = true;

type Env = Record<string, string | undefined>;

/** `CONSOLE_RESPECT_REVIEW_SETTINGS`: `true` or `false`, the default when unset; any other value stops the start. */
export function respectReviewSettingsFromEnv(env: Env = process.env): boolean {
  return booleanEnv(RESPECT_REVIEW_SETTINGS_VARIABLE, RESPECT_REVIEW_SETTINGS_DEFAULT, env);
}
