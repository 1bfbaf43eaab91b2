/**
 * A policy's identity: the SHA-256 of its normalized text (`normalizedPolicyText`, what a bundle
 * ships and the build's define names), shortened to POLICY_DIGEST_LENGTH hex digits. Taken of the
 * validated policy, not of the file's bytes, so that the file as written, the bundle built from it,
 * an unbundled run and `policy check` all name it alike (whitespace and defaults left out or
 * spelled out make no other policy). Audit and held records keep it (`policyDigest`), so `why` and
 * `policy replay` can tell which records a policy other than the deployed one decided.
 */
import { createHash } from 'node:crypto';
import { normalizedPolicyText } from './parse.js';
import type { Policy } from './schema.js';

/** 12 hex digits (48 bits): enough to tell a team's policy versions apart, short enough to read out. */
export const POLICY_DIGEST_LENGTH = 12;

/** SHA-256 (hex) of a policy file's bytes (a string is taken as its UTF-8 bytes). */
export function policySha256(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The short form of a policy's SHA-256, as records and `policy check` show it. */
export function shortPolicyDigest(sha256: string): string {
  return sha256.slice(0, POLICY_DIGEST_LENGTH);
}

/** The short digest of a validated policy (of its normalized text). */
export function policyDigest(policy: Policy): string {
  return shortPolicyDigest(policySha256(normalizedPolicyText(policy)));
}
