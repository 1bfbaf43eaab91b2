/**
 * Where a Deny click's veto is kept. A dry run's question is a rehearsal: its Deny must not veto
 * the real change (the same effect key would deny every later real request for it), so it is kept
 * under the effect key marked `#dry-run`. A dry run still honours the real change's veto, so that
 * it predicts what the real request would meet.
 */
import { formerClaimOnlyThisChanges, formerEffectKey } from '../actions/former-effect-key.js';
import { type ActionRequest, effectKey } from '../actions/request.js';
import { isDryRun } from './decide.js';
import type { Policy } from './schema.js';

/**
 * The veto key a dry run's own Deny writes, for the effect `effect`. No effect key is another one
 * followed by `#dry-run` (effectKey gives ids holding '#' a digest form), so this is never the key
 * of a real change's veto (only a former key, still read for a while: `vetoKeysToRead`).
 */
export function dryRunVetoKey(effect: string): string {
  return `${effect}#dry-run`;
}

/** The key a Deny on a question about `request` writes its veto under. */
export function vetoKeyFor(policy: Policy, request: ActionRequest): string {
  const effect = effectKey(request);
  return isDryRun(policy, request) ? dryRunVetoKey(effect) : effect;
}

/**
 * The former key a Deny on a question about `request` may already be on record under, when it is
 * no key written today: a question open across the deploy of the digest keys may have been denied
 * before it, and a later person's Deny is told whose that first Deny is, not recorded over it
 * (src/state/veto.ts `writeVeto`). Nothing is written under a former key any more, so the first
 * Deny there stays the first. Undefined where the key did not change, and where the former key is
 * another change's today (group names holding ',' and no '#'; a key ending `#dry-run`, that of a
 * Deny on a dry run): a Deny there is not this question's, and crediting it would lose this one.
 */
export function formerVetoKeyFor(policy: Policy, request: ActionRequest): string | undefined {
  const former = formerEffectKey(request);
  if (former === effectKey(request) || !formerClaimOnlyThisChanges(request) || former.endsWith('#dry-run'))
    return undefined;
  return isDryRun(policy, request) ? dryRunVetoKey(former) : former;
}

/**
 * The keys the worker reads a veto on `request` under (its effect key `key`), in one batch; the
 * first found is the one it meets: the real change's veto, then (a dry run) the dry run's own.
 *
 * Each also under the change's former key (former-effect-key.ts) when it differs: a Deny written
 * before ids holding '#' (and group names holding ',' or '#') took a digest key is stored under
 * the former one, and a veto that is no longer read lets automation make a change a person denied.
 * The former forms collide with keys still written (config `x#dry-run`'s former key is the key of
 * a Deny on a dry run of config `x`; group list ["a,b"]'s is the key of ["a", "b"]), so while this
 * read remains it may find a veto meant for another change: that only refuses one, never makes
 * one. Ordinary ids have no other former key, so they read no extra item.
 *
 * Vetoes are kept 90 days (src/state/veto.ts), and only the webhook writes them, always under the
 * current key: no former-key veto outlives the deploy of the digest keys by more than 90 days
 * (plus TTL's deletion lag, a few days: `vetoFromItem` does not look at `expiresAt`). This
 * former-key read can be removed once that deploy is 100 days old (or a scan finds no `veto#` item
 * under a former key), and `formerEffectKey` with it once finals are past their 90 days too.
 */
export function vetoKeysToRead(request: ActionRequest, key: string, dryRun: boolean): string[] {
  const former = formerEffectKey(request);
  const effects = former === key ? [key] : [key, former];
  // A set: one key twice in one BatchGetItem is refused by DynamoDB.
  return [...new Set([...effects, ...(dryRun ? effects.map(dryRunVetoKey) : [])])];
}
