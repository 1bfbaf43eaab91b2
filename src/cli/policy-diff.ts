/** `autopilot policy diff <old.json> <new.json>`: what changed between two policies, in words. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { diffPolicies } from '../policy/diff.js';
import { type Policy, policySchemas } from '../policy/schema.js';
import { formatPath } from '../util/zod-issues.js';
import { parse } from './args.js';
import { CommandError } from './errors.js';
import { type CliIo, EXIT, printHelp } from './io.js';

export const POLICY_DIFF_USAGE = `Usage:
  autopilot policy diff <old.json> <new.json> [--json]
      Say what changed between two policy files: rules added, removed, changed and reordered
      (and which requests a reorder sends to another rule first), freezes, windows, grants,
      protects, caps and sweeper settings. Exit 0 (even when they differ); 1 for an invalid file.`;

function load(io: CliIo, file: string): Policy {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(resolve(io.cwd, file), 'utf8'));
  } catch (error) {
    throw new CommandError(`cannot read policy ${file}: ${(error as Error).message}`);
  }
  const result = policySchemas().policy.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${formatPath(issue.path)}: ${issue.message}`);
  throw new CommandError(`${file} is not a valid policy:\n${lines.join('\n')}`);
}

export async function policyDiffCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parse(args, { json: { type: 'boolean' } }, POLICY_DIFF_USAGE, {
    min: 2,
    max: 2,
  });
  if (help) return printHelp(io, POLICY_DIFF_USAGE);
  const [oldFile, newFile] = positionals as [string, string];
  const changes = diffPolicies(load(io, oldFile), load(io, newFile));
  if (values.json) io.stdout(JSON.stringify({ changes }, null, 2));
  else if (changes.length === 0) io.stdout(`${oldFile} and ${newFile} decide alike: no change.`);
  else
    io.stdout(
      [`${changes.length} change(s) from ${oldFile} to ${newFile}:`, ...changes.map((c) => `  - ${c}`)].join(
        '\n',
      ),
    );
  return EXIT.ok;
}
