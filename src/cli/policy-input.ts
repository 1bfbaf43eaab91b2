/**
 * A policy file named on a CLI command line (`policy diff`, `policy replay`): read, parsed and
 * validated, with every problem on its own line under the file's name (exit 1).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { optionalEnv } from '../config/env.js';
import { type Policy, policySchemas } from '../policy/schema.js';
import { formatPath } from '../util/zod-issues.js';
import { CommandError } from './errors.js';
import type { CliIo } from './io.js';

/**
 * The policy file a command reads: the one named on its command line, else `AUTOPILOT_POLICY`
 * (empty counts as unset, as in the functions and `npm start`), else `policy.json`.
 */
export function policyFileOf(env: Readonly<Record<string, string | undefined>>, given?: string): string {
  return given ?? optionalEnv('AUTOPILOT_POLICY', env) ?? 'policy.json';
}

/** Reads `file` relative to the command's working directory. */
export const readFromCwd = (io: CliIo) => (file: string) => readFileSync(resolve(io.cwd, file), 'utf8');

export function readPolicyArg(file: string, read: (path: string) => string): Policy {
  let raw: unknown;
  try {
    raw = JSON.parse(read(file));
  } catch (error) {
    throw new CommandError(`cannot read policy ${file}: ${(error as Error).message}`);
  }
  const result = policySchemas().policy.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${formatPath(issue.path)}: ${issue.message}`);
  throw new CommandError(`${file} is not a valid policy:\n${lines.join('\n')}`);
}
