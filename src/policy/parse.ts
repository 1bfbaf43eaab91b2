/**
 * Validating a policy: the zod schema applied to a parsed value or to a file's text, with every
 * problem named by its path, and the normalized text a bundle ships. Pure: reading the file is
 * the loader's (src/wiring/policy-file.ts).
 */
import { formatIssues } from '../util/zod-issues.js';
import { PolicyError } from './errors.js';
import { type Policy, policySchemas } from './schema.js';

/** Validates an already-parsed policy object (builds the zod schema on first use). */
export function parsePolicy(value: unknown, source = 'policy'): Policy {
  const result = policySchemas().policy.safeParse(value);
  if (!result.success) {
    throw new PolicyError(`${source} is not a valid policy: ${formatIssues(result.error.issues)}`);
  }
  return result.data;
}

/** Full validation of a policy file's text: JSON, then the zod schema (every problem with its path). */
export function parsePolicyText(text: string, source: string): Policy {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PolicyError(`${source} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return parsePolicy(json, source);
}

/** The normalized policy file: the validated value (defaults filled in), two-space indent, final newline. */
export function normalizedPolicyText(policy: Policy): string {
  return `${JSON.stringify(policy, null, 2)}\n`;
}
