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
 * Whether the former key of `request` is no key written today (a Deny click reads it: src/policy/
 * veto-key.ts). A former key that held an id with '#' has more '#' than any key written today
 * (ordinary ids hold none, digest forms have a `~` prefix). A list of group names holding ',' and
 * no '#' had the key another list has today (["a,b"]: that of ["a", "b"]). Former keys may still
 * be one another's (`formerClaimIsThisChanges`).
 */
export function formerClaimOnlyThisChanges(request: EffectTarget): boolean {
  if (request.action !== 'disable_groups') return true;
  return request.experimentId.includes('#') || request.groupNames.some((name) => name.includes('#'));
}

/**
 * Whether the former key of `request` was the key of this change only, so that a claim there is
 * this change's whoever made it. Only a config's (`archive_config#<configId>`: the id is all the
 * rest). An approval's and a group disable's former forms also collide with each other, not only
 * with keys written today: trigger "a#b" phase "c" and trigger "a" phase "b#c" both had
 * `approve_phase#a#b#c`, experiment "e#x" with ["a,b"] and with ["a", "b"] both
 * `disable_groups#e#x#a,b`; taken whoever's, a change completed for the one was told "Already done"
 * to the other, never made. There only the same request's own claim is taken (src/worker/record.ts).
 */
export function formerClaimIsThisChanges(request: EffectTarget): boolean {
  return request.action === 'archive_config';
}
