/**
 * What a valid request must also show before the policy sees it: a requester vouched for by
 * the party that may speak for it (src/actions/proof.ts), and a `requestedAt` that is not in
 * the future (a request dated ahead would never reach `maxDeferHours`). A refusal goes to the
 * DLQ with its reason and is audited; nothing is mutated.
 */
import type { SQSRecord } from 'aws-lambda';
import { checkRequesterProof, PROOF_ATTRIBUTE, type RequesterKeys } from '../actions/proof.js';
import type { ActionRequest } from '../actions/request.js';
import { RetryLater } from './errors.js';

/** How far ahead of the worker's clock a `requestedAt` may be (clock skew between producers). */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/** The requester keys the worker checks proofs with; `refresh` re-reads them (rotation, rate-limited). */
export interface RequesterKeySource {
  get(): Promise<RequesterKeys>;
  refresh(): Promise<boolean>;
  /** The keys can be rotated and read again later (Secrets Manager); not when they are fixed. */
  rotates?: boolean | undefined;
}

export interface Refusal {
  rule: 'requester-not-proven' | 'requested-in-future';
  reason: string;
}

export async function admit(
  request: ActionRequest,
  record: Pick<SQSRecord, 'body' | 'messageAttributes'> & { attributes?: Partial<SQSRecord['attributes']> },
  keys: RequesterKeySource | undefined,
  now: Date,
): Promise<Refusal | undefined> {
  const proof = record.messageAttributes?.[PROOF_ATTRIBUTE]?.stringValue;
  const source = request.requestedBy.source;
  let check = checkRequesterProof(source, record.body, proof, keys ? await keys.get() : {});
  if (!check.ok && proof !== undefined && keys) {
    // A key rotated since our last read: read it again (at most once a minute) and check once more.
    const reread = await keys.refresh().catch(() => false);
    if (reread) check = checkRequesterProof(source, record.body, proof, await keys.get());
    // Too soon to read again: on its first delivery the message comes back after the visibility
    // timeout, when the keys can be read, rather than be refused for a key rotated a moment ago.
    // Its next delivery is judged for good.
    else if (keys.rotates && Number(record.attributes?.ApproximateReceiveCount ?? '1') <= 1)
      throw new RetryLater(
        'the proof matches no requester key read so far; the keys are read again before it comes back',
      );
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
