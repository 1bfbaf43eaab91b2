/**
 * The effect key the worker gave a change before ids holding '#' (and group names holding ',' or
 * '#') went by a digest form (src/actions/request.ts, effectKey). Records written before that
 * deploy name the change by this key, each kept 90 days: a final's owner (without it, a copy of a
 * request that ended before the deploy, an SQS redelivery, a CI retry, `autopilot wait`, met its
 * own final as another request's and was refused as "request id taken") and a person's Deny (a
 * veto no longer read lets automation make the change they denied: src/policy/veto-key.ts), and
 * an effect's claim (a call that got no answer just before the deploy may have made the change:
 * its retry must say so and take no second limit unit; a change completed then is replayed, not
 * made again: src/state/request-state.ts). The old forms collide, so this key only ever adds a
 * refusal or a caution: it tells a request's own final and claim apart, finds a veto as well as the
 * current key's, and is never used to claim an effect or to write anything.
 */
import { createHash } from 'node:crypto';
import type { EffectTarget } from './request.js';

export function formerEffectKey(request: EffectTarget): string {
  switch (request.action) {
    case 'approve_phase':
      return `approve_phase#${request.triggerId}#${request.phaseId}`;
    case 'disable_groups': {
      const groups = [...request.groupNames].sort().join(',');
      const key = `disable_groups#${request.experimentId}#${groups}`;
      if (Buffer.byteLength(key) <= 1024) return key;
      return `disable_groups~sha256#${request.experimentId}#${createHash('sha256').update(groups).digest('hex')}`;
    }
    case 'archive_config':
      return `archive_config#${request.configId}`;
  }
}

/**
 * Whether an effect claim under the former key of `request` can only be this change's. A former
 * key that held an id with '#' has more '#' than any key claimed today (ordinary ids hold none,
 * digest forms have a `~` prefix, and a dry run's `#dry-run` form is never claimed). A list of
 * group names holding ',' and no '#' had the key another list has today (["a,b"]: that of
 * ["a", "b"]), so a claim there may be that other change's: only this request's own is taken.
 */
export function formerClaimOnlyThisChanges(request: EffectTarget): boolean {
  if (request.action !== 'disable_groups') return true;
  return request.experimentId.includes('#') || request.groupNames.some((name) => name.includes('#'));
}
