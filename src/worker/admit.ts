/**
 * What a valid request must also show before the policy sees it: a requester vouched for by
 * the party that may speak for it (src/actions/proof.ts), and a `requestedAt` that is not in
 * the future (a request dated ahead would never reach `maxDeferHours`). A refusal goes to the
 * DLQ with its reason and is audited; nothing is mutated.
 */
import type { SQSRecord } from 'aws-lambda';
import { checkRequesterProof, PROOF_ATTRIBUTE, type RequesterKeys } from '../actions/proof.js';
import type { ActionRequest } from '../actions/request.js';

/** How far ahead of the worker's clock a `requestedAt` may be (clock skew between producers). */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/** The requester keys the worker checks proofs with; `refresh` re-reads them (rotation, rate-limited). */
export interface RequesterKeySource {
  get(): Promise<RequesterKeys>;
  refresh(): Promise<boolean>;
}

export interface Refusal {
  rule: 'requester-not-proven' | 'requested-in-future';
  reason: string;
}

export async function admit(
  request: ActionRequest,
  record: Pick<SQSRecord, 'body' | 'messageAttributes'>,
  keys: RequesterKeySource | undefined,
  now: Date,
): Promise<Refusal | undefined> {
  const proof = record.messageAttributes?.[PROOF_ATTRIBUTE]?.stringValue;
  const source = request.requestedBy.source;
  let check = checkRequesterProof(source, record.body, proof, keys ? await keys.get() : {});
  // A key rotated since our last read: read it again (at most once a minute) and check once more.
  if (!check.ok && proof !== undefined && keys && (await keys.refresh().catch(() => false))) {
    check = checkRequesterProof(source, record.body, proof, await keys.get());
  }
  if (!check.ok) return { rule: 'requester-not-proven', reason: check.reason };
  // Who asked comes first: an unproven message is refused as that, whatever its date.
  const at = Date.parse(request.requestedAt);
  if (at - now.getTime() > MAX_FUTURE_SKEW_MS) {
    return {
      rule: 'requested-in-future',
      reason: `requestedAt ${request.requestedAt} is more than 5 minutes ahead of the worker's clock (${now.toISOString()})`,
    };
  }
  return undefined;
}
