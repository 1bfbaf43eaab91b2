/**
 * Where a Deny click's veto is kept. A dry run's question is a rehearsal: its Deny must not veto
 * the real change (the same effect key would deny every later real request for it), so it is kept
 * under the effect key marked `#dry-run`. A dry run still honours the real change's veto, so that
 * it predicts what the real request would meet.
 */
import { type ActionRequest, effectKey } from '../actions/request.js';
import { isDryRun } from './decide.js';
import type { Policy } from './schema.js';

/**
 * The veto key a dry run's own Deny writes, for the effect `effect`. No effect key is another one
 * followed by `#dry-run` (effectKey gives ids holding '#' a digest form), so this is never the key
 * of a real change's veto.
 */
export function dryRunVetoKey(effect: string): string {
  return `${effect}#dry-run`;
}

/** The key a Deny on a question about `request` writes its veto under. */
export function vetoKeyFor(policy: Policy, request: ActionRequest): string {
  const effect = effectKey(request);
  return isDryRun(policy, request) ? dryRunVetoKey(effect) : effect;
}
