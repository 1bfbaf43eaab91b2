/**
 * Loading the policy file (the one place that reads it; validation itself is src/policy/parse.ts). An invalid file never reaches a decision: it fails the bundling (and
 * so `cdk synth`/`deploy`) or the start, with every zod path in the message, so that a typo never
 * turns into a silent "deny everything" in production.
 *
 * Validated when built, verified when started. Bundling a function (infra/bundling.ts) validates
 * the policy with the zod schema, writes the *normalized* policy (`normalizedPolicyText`: the
 * parsed value with its defaults filled in) beside the bundle, and defines
 * `globalThis.__AUTOPILOT_VALIDATED_POLICY_SHA256__` in the bundle as the SHA-256 of exactly
 * those bytes. `loadPolicyFile` hashes the bytes it reads: when they are the ones the build
 * validated, it returns `JSON.parse` of them without building the schema (~150 zod objects,
 * the bulk of a cold start's policy load). That is a memo, not a shortcut: validation is a pure
 * function of the bytes, the build ran it with this same schema, and the normalized text is a
 * fixed point of it (validating it again yields exactly that text: checked at every build and
 * by a property test), so `JSON.parse` gives exactly what validating would. Any other file, or
 * any file where no digest was built in (tsx, tests, the local stack, the CLI), is validated in
 * full as before.
 *
 * The one input of validation besides the bytes is the runtime's time zone data (`timezone` must
 * be a zone Intl knows). The fast path does not ask again: Node (here and Lambda's nodejs22.x)
 * ships full ICU, IANA never withdraws a zone name (old names stay as links), so a zone the
 * build's Node knows is known to any Node with the same or newer tz data. Only a zone added to
 * the tz database after the Lambda runtime's Node was built could slip through, and it would
 * fail closed: the first decision that reads the zone throws (Intl's RangeError), nothing is
 * mutated, and the request is retried and dead-lettered. Checking it at every start would cost
 * 2–3 ms (`Intl.supportedValuesOf`), or ~20 ms for an alias such as `UTC`.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { policyDigest, policySha256, shortPolicyDigest } from '../policy/digest.js';
import { PolicyError } from '../policy/errors.js';
import { normalizedPolicyText, parsePolicyText } from '../policy/parse.js';
import type { Policy } from '../policy/schema.js';
import { rememberSecret } from '../util/secret-scrub.js';

declare global {
  /**
   * Replaced by esbuild (`define`) with the SHA-256 (hex) of the normalized policy file the
   * bundle was built with (infra/bundling.ts); undefined wherever the code runs unbundled.
   */
  var __AUTOPILOT_VALIDATED_POLICY_SHA256__: string | undefined;
}

/** The esbuild `define` key whose value is the validated policy's digest (a JSON string literal). */
export const VALIDATED_POLICY_SHA256_DEFINE = 'globalThis.__AUTOPILOT_VALIDATED_POLICY_SHA256__';

export { policySha256 };

function readPolicyBytes(path: string): { file: string; bytes: Buffer } {
  const file = resolve(path);
  try {
    return { file, bytes: readFileSync(file) };
  } catch (error) {
    throw new PolicyError(`cannot read policy file ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Reads the policy file; the default is `AUTOPILOT_POLICY` or `policy.json` in the working
 * directory. The file the bundle was built with is trusted by its digest; any other is validated.
 */
export function loadPolicyFile(path = process.env.AUTOPILOT_POLICY ?? 'policy.json'): Policy {
  return loadPolicyWithDigest(path).policy;
}

/**
 * `loadPolicyFile`, with the policy's short digest (src/policy/digest.ts) that the worker writes on
 * its decisions. A bundle's file is the normalized text the build hashed: its digest is the
 * define's; any other is taken of the validated policy's normalized text, so it is the same.
 */
export function loadPolicyWithDigest(path = process.env.AUTOPILOT_POLICY ?? 'policy.json'): {
  policy: Policy;
  digest: string;
} {
  const { file, bytes } = readPolicyBytes(path);
  const text = bytes.toString('utf8');
  // A constant in a deployed bundle (esbuild `define`), undefined anywhere else.
  const validated = globalThis.__AUTOPILOT_VALIDATED_POLICY_SHA256__;
  if (validated !== undefined && policySha256(bytes) === validated)
    return {
      policy: rememberPolicySecrets(JSON.parse(text) as Policy),
      digest: shortPolicyDigest(validated),
    };
  const policy = rememberPolicySecrets(parsePolicyText(text, `policy file ${file}`));
  return { policy, digest: policyDigest(policy) };
}

/**
 * Tells the scrubber the credentials a policy holds: the deprecated `notifications.slackWebhookUrl`
 * is an incoming-webhook URL (anyone holding it posts to the channel), kept where the secret's own
 * URL is not. The three functions, the local stack and `autopilot sweep` load their policy here, so it is redacted
 * from every log line, error and reply as the secret's is.
 */
function rememberPolicySecrets(policy: Policy): Policy {
  // `?.`: a bundle's policy is trusted by its digest, not read through the schema here.
  rememberSecret(policy.notifications?.slackWebhookUrl);
  return policy;
}

/**
 * The policy a function runs and its short digest: the caller's (the CLI, tests; its digest taken
 * of it unless given too), else the file at `path`.
 */
export function policyWithDigest(
  given: { policy?: Policy | undefined; policyDigest?: string | undefined },
  path = 'policy.json',
): { policy: Policy; policyDigest: string } {
  const loaded = given.policy
    ? { policy: rememberPolicySecrets(given.policy), digest: policyDigest(given.policy) }
    : loadPolicyWithDigest(path);
  return { policy: loaded.policy, policyDigest: given.policyDigest ?? loaded.digest };
}

/** A policy file as a bundle ships it: validated, normalized, and the digest of those bytes. */
export interface NormalizedPolicyFile {
  policy: Policy;
  /** `normalizedPolicyText(policy)`: what the bundle ships as its policy.json. */
  text: string;
  /** `policySha256(text)`: what the bundle trusts without validating again. */
  sha256: string;
}

/**
 * What bundling does with a policy file (infra/bundling.ts): validate it in full (an invalid
 * file throws a PolicyError with every zod path), normalize it, and make sure the normalized
 * text validates to exactly itself before its digest is handed out, so that trusting the digest
 * returns what validating would have.
 */
export function normalizePolicyFile(path: string): NormalizedPolicyFile {
  const { file, bytes } = readPolicyBytes(path);
  const policy = parsePolicyText(bytes.toString('utf8'), `policy file ${file}`);
  const text = normalizedPolicyText(policy);
  const again = normalizedPolicyText(parsePolicyText(text, `policy file ${file} (normalized)`));
  if (again !== text) {
    throw new PolicyError(`policy file ${file}: its normalized form does not validate to itself`);
  }
  return { policy, text, sha256: policySha256(text) };
}
