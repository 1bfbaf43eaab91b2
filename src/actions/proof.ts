/**
 * Proven requesters. A request's `requestedBy.source` decides which policy rules apply (a
 * `slack:` requester may carry a chat grant that skips windows and limits), so the worker does
 * not take it on the message's word. Each source has one party that vouches for it:
 *
 * - `slack` — the webhook, after it verified Slack's signature;
 * - `events`, `schedule` — the sweeper;
 * - `ci` — the queue itself: its resource policy lets only the principals the deployment names
 *   send (the functions' roles and `ciPrincipals`), so whoever got a message in may speak as CI.
 *
 * The webhook and the sweeper each hold a random key (a generated secret only they and the
 * worker can read) and put an HMAC-SHA256 of the exact message body in the `requesterProof`
 * message attribute. A body is then as trustworthy as the party that signed it: changing any
 * byte, or claiming a source the signer does not vouch for, fails the check. Why not SQS's
 * `SenderId` (the sender's role id): it is just as strong on AWS, but the local SQS emulator
 * reports one constant sender for everybody, and a message the worker moves (deferral, DLQ and
 * redrive) would change its sender; a proof travels with the body.
 */
import { timingSafeEqual } from 'node:crypto';
import { hmacSha256 } from '../util/hmac.js';
import type { REQUESTER_SOURCES } from './request.js';

export type RequesterSource = (typeof REQUESTER_SOURCES)[number];

/** The functions that vouch for requesters by signing. */
export type Signer = 'webhook' | 'sweeper';
export const SIGNERS = ['webhook', 'sweeper'] as const satisfies readonly Signer[];

/** Who vouches for each source: a signer, or the queue's resource policy (`queue-policy`). */
export const VOUCHED_BY: Readonly<Record<RequesterSource, Signer | 'queue-policy'>> = {
  slack: 'webhook',
  events: 'sweeper',
  schedule: 'sweeper',
  ci: 'queue-policy',
};

/** The SQS message attribute that carries the proof. */
export const PROOF_ATTRIBUTE = 'requesterProof';

const PROOF = /^v1\.(webhook|sweeper)\.([0-9a-f]{64})$/;

/** The signers' keys a function holds (the webhook: its own; the worker: both). */
export type RequesterKeys = Partial<Record<Signer, string>>;

function mac(key: string, signer: Signer, body: string): Buffer {
  return hmacSha256(key, `console-autopilot/requester-proof/v1\n${signer}\n`, body);
}

/** The proof attribute's value for `body` signed by `signer`. */
export function requesterProof(signer: Signer, key: string, body: string): string {
  return `v1.${signer}.${mac(key, signer, body).toString('hex')}`;
}

export type ProofCheck = { ok: true; vouchedBy: Signer | 'queue-policy' } | { ok: false; reason: string };

/**
 * Whether `body`, claiming `source`, is vouched for. The reason of a refusal starts with
 * "requester not proven:" and names what was missing, never a key or a MAC.
 */
export function checkRequesterProof(
  source: RequesterSource,
  body: string,
  proof: string | undefined,
  keys: RequesterKeys,
): ProofCheck {
  const voucher = VOUCHED_BY[source];
  if (voucher === undefined)
    return { ok: false, reason: `requester not proven: no party vouches for "${source}"` };
  if (voucher === 'queue-policy') return { ok: true, vouchedBy: voucher };
  const refuse = (why: string) => ({
    ok: false as const,
    reason: `requester not proven: ${source} requests are accepted only from the ${voucher}; ${why}`,
  });
  if (proof === undefined) return refuse('this message carries no proof');
  const parsed = PROOF.exec(proof);
  if (!parsed) return refuse('its proof is malformed');
  if (parsed[1] !== voucher) return refuse(`its proof was made by the ${parsed[1]}`);
  const key = keys[voucher];
  if (!key) return refuse(`this worker holds no ${voucher} key to check it`);
  const given = Buffer.from(parsed[2] as string, 'hex');
  if (!timingSafeEqual(given, mac(key, voucher, body))) return refuse('its proof does not match the body');
  return { ok: true, vouchedBy: voucher };
}

/** Makes proofs for the sources whose signer's key this function holds. */
export interface RequesterSigner {
  /** The proof for `body`; undefined for a source the queue policy vouches for (`ci`). */
  proofFor(source: RequesterSource, body: string): Promise<string | undefined>;
}

export class RequesterSignerError extends Error {
  override name = 'RequesterSignerError';
}

/**
 * A signer over the keys `keys()` returns (read from the secrets, so a rotated key is used
 * from its next read). A source whose signer's key is not held throws: a function must never
 * send a request it cannot vouch for, which the worker would only refuse later.
 */
export function createRequesterSigner(keys: () => Promise<RequesterKeys>): RequesterSigner {
  return {
    async proofFor(source, body) {
      const voucher = VOUCHED_BY[source];
      if (voucher === 'queue-policy') return undefined;
      const key = (await keys())[voucher];
      if (!key) throw new RequesterSignerError(`cannot vouch for ${source} requests: no ${voucher} key`);
      return requesterProof(voucher, key, body);
    },
  };
}
