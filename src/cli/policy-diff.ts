/** `autopilot policy diff <old.json> <new.json>`: what changed between two policies, in words. */
import { diffPolicies } from '../policy/diff.js';
import { parse } from './args.js';
import { type CliIo, EXIT, printHelp } from './io.js';
import { readFromCwd, readPolicyArg } from './policy-input.js';

export const POLICY_DIFF_USAGE = `Usage:
  autopilot policy diff <old.json> <new.json> [--json]
      Say what changed between two policy files: rules added, removed, changed and reordered
      (and which requests a reorder sends to another rule first), freezes, windows, grants,
      protects, caps and sweeper settings. Exit 0 (even when they differ); 1 for an invalid file.`;

export async function policyDiffCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parse(args, { json: { type: 'boolean' } }, POLICY_DIFF_USAGE, {
    min: 2,
    max: 2,
  });
  if (help) return printHelp(io, POLICY_DIFF_USAGE);
  const [oldFile, newFile] = positionals as [string, string];
  const changes = diffPolicies(
    readPolicyArg(oldFile, readFromCwd(io)),
    readPolicyArg(newFile, readFromCwd(io)),
  );
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
