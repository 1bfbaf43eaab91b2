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

/**
 * The normalized policy file: the validated value (defaults filled in), two-space indent, final
 * newline. Objects the schema declares keep its order; the two maps whose keys are the author's
 * (`chat.grants`, an event rule's `match`) are written in sorted key order, so that the same grants
 * written in another order are the same text and the same digest (docs/policy.md: "the same
 * however it is laid out"), not "another policy" in `why` and `policy replay`. A file whose keys
 * were already sorted keeps its digest.
 */
export function normalizedPolicyText(policy: Policy): string {
  return `${JSON.stringify(policy, authorKeysSorted, 2)}\n`;
}

/** The author-keyed maps of a policy, by the property that holds them. */
const AUTHOR_KEYED = new Set(['grants', 'match']);

function authorKeysSorted(key: string, value: unknown): unknown {
  if (!AUTHOR_KEYED.has(key) || value === null || typeof value !== 'object' || Array.isArray(value))
    return value;
  const entries = Object.entries(value as Record<string, unknown>);
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
