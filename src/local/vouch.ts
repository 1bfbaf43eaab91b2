/**
 * The local stack's requester keys (src/actions/proof.ts): random per boot and held only by
 * the in-process webhook, sweeper and worker, so the CLI, the demo or any SQS client outside
 * cannot vouch for `slack`, `events` or `schedule` requests, exactly as deployed. Harnesses
 * that run inside the stack's process (chaos, tests) may sign as one of the functions.
 */
import { randomBytes } from 'node:crypto';
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import {
  createRequesterSigner,
  PROOF_ATTRIBUTE,
  type RequesterKeys,
  type RequesterSigner,
  type RequesterSource,
  requesterProof,
  SIGNERS,
  type Signer,
  VOUCHED_BY,
} from '../actions/proof.js';
import { requesterKeyVariable } from '../secrets/secrets.js';

/** Fresh keys for every signer, as the environment variables the functions read. */
export function localRequesterKeys(): Record<string, string> {
  return Object.fromEntries(
    SIGNERS.map((signer) => [requesterKeyVariable(signer), randomBytes(32).toString('base64url')]),
  );
}

/**
 * The message attributes that vouch for `body` as the function that would have sent it (none
 * for `ci`, or for a body that is not a request). For harnesses inside the stack's process only.
 */
export function vouchAttributes(
  env: Record<string, string | undefined>,
  body: string,
): Record<string, MessageAttributeValue> {
  let source: RequesterSource | undefined;
  try {
    source = (JSON.parse(body) as { requestedBy?: { source?: RequesterSource } }).requestedBy?.source;
  } catch {
    return {};
  }
  const signer = source ? VOUCHED_BY[source] : undefined;
  if (!signer || signer === 'queue-policy') return {};
  const key = env[requesterKeyVariable(signer as Signer)];
  if (!key) return {};
  return { [PROOF_ATTRIBUTE]: { DataType: 'String', StringValue: requesterProof(signer, key, body) } };
}

/** A signer with every function's key, for harnesses in the stack's process that play the webhook or sweeper. */
export function localSigner(env: Record<string, string | undefined>): RequesterSigner {
  const keys: RequesterKeys = {};
  for (const signer of SIGNERS) {
    const key = env[requesterKeyVariable(signer)];
    if (key) keys[signer] = key;
  }
  return createRequesterSigner(async () => keys);
}
