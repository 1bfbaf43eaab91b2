/**
 * Everything the worker needs to know before deciding on one request, in one consistent
 * BatchGetItem instead of four reads: the request's final outcome (a copy that already ended),
 * the effect's claim, the pause flag, a veto and whether it is held (and, for a stale sweep's
 * archive, the config's last exposure and how far the sweeper has read the event log). On the emulator and on DynamoDB alike, one round
 * trip per record matters: it is on the path of every message.
 */

import { requestOwner } from '../actions/request.js';
import type { Veto } from '../policy/decide.js';
import { type FinalOutcome, finalFromItem, finalItemKey, type RequestOwner } from './audit.js';
import { keyId } from './dynamo.js';
import { batchGet } from './dynamo-batch.js';
import {
  claimMayHaveReached,
  claimRequestId,
  type EffectState,
  effectFromItem,
  effectItemKey,
} from './effects.js';
import { type GivenUpEnd, givenUpEndFromItem, givenUpEndKey } from './given-up-end.js';
import { type CancelMark, cancelFromItem, type HeldRecord, heldFromItem, heldItemKey } from './held.js';
import { evictedUpToItemKey, lastSeenFromItem, lastSeenItemKey } from './last-seen.js';
import { PAUSE_KEY, type PauseState, pauseFromItem } from './pause.js';
import { READ_UP_TO_KEY, readUpToFromItem } from './sweep-cursor.js';
import type { StateTable } from './table.js';
import { vetoFromItem, vetoItemKey } from './veto.js';

export interface RequestState {
  final: FinalOutcome | undefined;
  /** When it was given up, if it was (no final: src/state/given-up-end.ts). */
  givenUp: GivenUpEnd | undefined;
  effect: EffectState;
  pause: PauseState;
  veto: Veto | undefined;
  /** A held record of this request exists (src/state/held.ts). */
  held: boolean;
  /** Whose request is held under the id. */
  heldOwner: RequestOwner | undefined;
  /** The held record itself (a question's answer mark: src/worker/answer-pending.ts). */
  heldRecord: HeldRecord | undefined;
  /** Its cancel mark (`/autopilot cancel`), when one was set. */
  cancel: CancelMark | undefined;
  /**
   * Its held item says an attempt for it, or for an Approve click answering it, may have reached
   * the platform (`reachedAt`), or one is executing (`executingBy`: it may be calling now, or crashed).
   */
  reached: boolean;
  /** Its effect's claim says a call for it may have reached the platform (effects.ts, `claimMayHaveReached`). */
  effectReached: boolean;
  /**
   * The claim under the effect's former key says so (`subject.formerEffect`): no claim under the
   * current key can have heard of that call, so the claim taken now does not say it by itself.
   */
  formerEffectReached: boolean;
  /**
   * The newest exposure the sweeper recorded for `subject.exposureOf` (epoch ms), never earlier
   * than the last-seen index's eviction watermark: its entry may have been evicted (last-seen.ts).
   */
  lastExposure: number | undefined;
  /** With `subject.exposureOf`: how far the sweeper has read the event log (epoch ms; null: never). */
  eventsReadUpTo: number | null | undefined;
}

export async function readRequestState(
  table: StateTable,
  /**
   * `exposureOf`: a config whose last exposure is read too. `vetoKeys`: the keys a veto on the
   * request may be under, first wins (src/policy/veto-key.ts `vetoKeysToRead`: the effect's, its
   * former key's, a dry run's own); only the effect's when omitted. `formerEffect`: the change's
   * key before ids holding '#' (or group names holding ',') took a digest form, when it differs
   * (src/actions/former-effect-key.ts), and whether a claim there is this change's whoever's it is
   * (`anyOwner`), or only when it is this request's own (the former key may be another change's).
   */
  subject: {
    requestId: string;
    effectKey: string;
    exposureOf?: string | undefined;
    vetoKeys?: readonly string[] | undefined;
    formerEffect?: { key: string; anyOwner: boolean } | undefined;
  },
  /** The process clock (epoch ms) an effect's lock is judged by. */
  nowMs = Date.now(),
): Promise<RequestState> {
  const keys = {
    final: finalItemKey(subject.requestId),
    givenUp: givenUpEndKey(subject.requestId),
    effect: effectItemKey(subject.effectKey),
    pause: PAUSE_KEY,
    held: heldItemKey(subject.requestId),
    ...(subject.exposureOf === undefined
      ? {}
      : {
          lastSeen: lastSeenItemKey(subject.exposureOf),
          evictedUpTo: evictedUpToItemKey(),
          readUpTo: READ_UP_TO_KEY,
        }),
  };
  const vetoKeys = (subject.vetoKeys ?? [subject.effectKey]).map(vetoItemKey);
  const formerKey = subject.formerEffect && effectItemKey(subject.formerEffect.key);
  const found = new Map(
    (await batchGet(table, [...Object.values(keys), ...vetoKeys, ...(formerKey ? [formerKey] : [])])).map(
      (item) => [keyId(item), item],
    ),
  );
  const heldItem = found.get(keyId(keys.held));
  const heldRecord = heldItem ? heldFromItem(heldItem) : undefined;
  const effectItem = found.get(keyId(keys.effect));
  // A claim written before the deploy of the digest keys is under the former key only (kept 90
  // days, never written again): a change completed then is replayed rather than made again, and a
  // call that got no answer then may have made it (its retry must say so, and take no second unit).
  const formerItem = formerKey && found.get(keyId(formerKey));
  const former =
    formerItem && (subject.formerEffect?.anyOwner || claimRequestId(formerItem) === subject.requestId)
      ? formerItem
      : undefined;
  const effect = effectFromItem(effectItem, nowMs);
  const formerEffectReached = claimMayHaveReached(former, subject.requestId, nowMs);
  return {
    final: finalFromItem(found.get(keyId(keys.final))),
    givenUp: givenUpEndFromItem(found.get(keyId(keys.givenUp))),
    effect: effect.status === 'free' && former ? effectFromItem(former, nowMs) : effect,
    pause: pauseFromItem(found.get(keyId(keys.pause))),
    veto: vetoKeys.map((key) => vetoFromItem(found.get(keyId(key)))).find((veto) => veto !== undefined),
    held: heldItem !== undefined,
    heldOwner: heldRecord && requestOwner(heldRecord.request),
    heldRecord,
    cancel: cancelFromItem(heldItem),
    reached: heldRecord?.reachedAt !== undefined || heldRecord?.executingBy !== undefined,
    effectReached: claimMayHaveReached(effectItem, subject.requestId, nowMs) || formerEffectReached,
    formerEffectReached,
    lastExposure:
      subject.exposureOf === undefined
        ? undefined
        : newest(
            // As the sweeper reads them: never later than written (an older version's stamp years ahead).
            lastSeenFromItem(found.get(keyId(keys.lastSeen)), nowMs),
            lastSeenFromItem(found.get(keyId(keys.evictedUpTo)), nowMs),
          ),
    eventsReadUpTo:
      subject.exposureOf === undefined ? undefined : readUpToFromItem(found.get(keyId(keys.readUpTo))),
  };
}

function newest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}
