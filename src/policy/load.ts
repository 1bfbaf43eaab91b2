/**
 * Loading the policy file. An invalid file is fatal at start, with every zod path in the
 * message, so that a typo never turns into a silent "deny everything" in production.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatIssues } from '../util/zod-issues.js';
import { type Policy, PolicySchema } from './schema.js';

export class PolicyError extends Error {
  override name = 'PolicyError';
}

/** Validates an already-parsed policy object. */
export function parsePolicy(value: unknown, source = 'policy'): Policy {
  const result = PolicySchema.safeParse(value);
  if (!result.success) {
    throw new PolicyError(`${source} is not a valid policy: ${formatIssues(result.error.issues)}`);
  }
  return result.data;
}

/** Reads and validates a policy file; the default is `AUTOPILOT_POLICY` or `policy.json` in the working directory. */
export function loadPolicyFile(path = process.env.AUTOPILOT_POLICY ?? 'policy.json'): Policy {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PolicyError(`cannot read policy file ${file}: ${(error as Error).message}`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new PolicyError(`policy file ${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return parsePolicy(json, `policy file ${file}`);
}
