/**
 * The effect key the worker gave a change before ids holding '#' (and group names holding ',' or
 * '#') went by a digest form (src/actions/request.ts, effectKey). Records written before that
 * deploy name the change by this key, each kept 90 days: a final's owner (without it, a copy of a
 * request that ended before the deploy, an SQS redelivery, a CI retry, `autopilot wait`, met its
 * own final as another request's and was refused as "request id taken") and a person's Deny (a
 * veto no longer read lets automation make the change they denied: src/policy/veto-key.ts). The
 * old forms collide, so this key only ever adds a refusal: it tells a request's own final apart
 * and finds a veto as well as the current key's, and is never used to claim an effect or to
 * write anything.
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
