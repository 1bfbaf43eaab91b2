/**
 * What a valid request must also show before the policy sees it: a requester vouched for by
 * the party that may speak for it (src/actions/proof.ts), and a `requestedAt` that is not in
 * the future (a request dated ahead would never reach `maxDeferHours`). A refusal goes to the
 * DLQ with its reason and is audited; nothing is mutated.
 */
import type { SQSRecord } from 'aws-lambda';
import {
  checkRequesterProof,
  PROOF_ATTRIBUTE,
  type ProofCheck,
  type RequesterKeys,
  type Signer,
  VOUCHED_BY,
} from '../actions/proof.js';
import { type ActionRequest, futureDated } from '../actions/request.js';
import { type RequestOwner, sameOwner } from '../state/audit.js';
import { RetryLater } from './errors.js';

/** The requester keys the worker checks proofs with; `refresh` re-reads them (rotation, rate-limited). */
export interface RequesterKeySource {
  get(): Promise<RequesterKeys>;
  refresh(): Promise<boolean>;
  /** The keys can be rotated and read again later (Secrets Manager); not when they are fixed. */
  rotates?: boolean | undefined;
  /** A signer's key rotated out a moment ago, which warm signers may still use (src/secrets/previous-keys.ts). */
  previous?: ((signer: Signer) => Promise<string | undefined>) | undefined;
}

export interface Refusal {
  rule: 'requester-not-proven' | 'requested-in-future' | 'request-id-reserved' | 'request-id-taken';
  reason: string;
}

/**
 * Request ids our own producers derive, each for its source alone: any sender the queue lets in
 * may speak as `ci` without a proof, and must not take an id it can foresee (an Approve click's
 * copy is `<asked id>:approved-by:<user>`) and end it first.
 */
const RESERVED_IDS: ReadonlyArray<{ owns: (id: string) => boolean; source: string; what: string }> = [
  { owns: (id) => id.includes(':approved-by:'), source: 'slack', what: "an Approve click's copy" },
  { owns: (id) => id.startsWith('slack-'), source: 'slack', what: "the webhook's" },
  { owns: (id) => id.startsWith('ev:'), source: 'events', what: "an event rule's" },
  { owns: (id) => id.startsWith('stale:'), source: 'schedule', what: "the sweeper's" },
];

/** A refusal when the request's id is one another source's producer derives. */
export function reservedIdRefusal(request: ActionRequest): Refusal | undefined {
  const id = request.requestId;
  const reserved = id === undefined ? undefined : RESERVED_IDS.find((r) => r.owns(id));
  if (!reserved || reserved.source === request.requestedBy.source) return undefined;
  return {
    rule: 'request-id-reserved',
    reason: `request id ${id} is ${reserved.what} form: only ${reserved.source} requests may use it`,
  };
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
    if (!check.ok) check = (await withPreviousKey(source, record.body, proof, keys)) ?? check;
    // Too soon to read again: on its first delivery the message comes back after the visibility
    // timeout, when the keys can be read, rather than be refused for a key rotated a moment ago.
    // Its next delivery is judged for good.
    if (
      !check.ok &&
      !reread &&
      keys.rotates &&
      Number(record.attributes?.ApproximateReceiveCount ?? '1') <= 1
    )
      throw new RetryLater(
        'the proof matches no requester key read so far; the keys are read again before it comes back',
      );
  }
  if (!check.ok) return { rule: 'requester-not-proven', reason: check.reason };
  const reserved = reservedIdRefusal(request);
  if (reserved) return reserved;
  // Who asked comes first: an unproven message is refused as that, whatever its date.
  const future = futureDated(request, now);
  return future ? { rule: 'requested-in-future', reason: future } : undefined;
}

/** The check with the signer's previous key, while its rotation is recent; undefined without one. */
async function withPreviousKey(
  source: ActionRequest['requestedBy']['source'],
  body: string,
  proof: string,
  keys: RequesterKeySource,
): Promise<ProofCheck | undefined> {
  const signer = VOUCHED_BY[source];
  if (!keys.previous || signer === undefined || signer === 'queue-policy') return undefined;
  const previous = await keys.previous(signer).catch(() => undefined);
  return previous ? checkRequesterProof(source, body, proof, { [signer]: previous }) : undefined;
}

/** A refusal when `other` (the request held or ended under the id) is not this request. */
export function idTakenRefusal(
  mine: RequestOwner,
  other: RequestOwner | undefined,
  requestId: string,
): Refusal | undefined {
  if (!other || sameOwner(other, mine)) return undefined;
  return {
    rule: 'request-id-taken',
    reason: `request id ${requestId} belongs to another request (by ${other.requester}); send this one under an id of its own`,
  };
}
