/**
 * `autopilot policy test [policy.json] [cases.json]`: runs a policy's test cases (src/policy/cases.ts)
 * and prints a table; exit 0 when every case passes, 1 when one fails, 2 for a bad cases file
 * (with the zod path) or a bad command line.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NOT_ASKED_SHORT } from '../policy/ask-channel.js';
import { type CaseResult, policyCasesSchema, runCases } from '../policy/cases.js';
import { policySchemas } from '../policy/schema.js';
import { formatPath } from '../util/zod-issues.js';
import { parse } from './args.js';
import { CommandError } from './errors.js';
import { type CliIo, EXIT, printHelp, renderTable } from './io.js';
import { policyFileOf } from './policy-input.js';

export const POLICY_TEST_USAGE = `Usage:
  autopilot policy test [policy.json] [cases.json] [--json]
      Decide every case of the cases file (default: policy.cases.json) under the policy
      (default: AUTOPILOT_POLICY or policy.json) and compare with what it expects.
      An ask is carried out as the worker does: denied where the case says the deployment has
      no notifications channel (deployment.channel: false) or the request is too large for the
      Slack buttons; the table shows it, e.g. "deny (not asked: no channel)".
      Exit 0 all pass, 1 a case failed (or the policy is invalid), 2 a bad cases file.`;

function readJson(io: CliIo, file: string, what: string, exit: number): unknown {
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new CommandError(
      `cannot read ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? ''}`,
      exit,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CommandError(`${what} ${file} is not JSON: ${(error as Error).message}`, exit);
  }
}

/** ` (case "name")` for an issue inside a case that has a name: a path alone is hard to find in a long file. */
function caseNamed(raw: unknown, path: readonly PropertyKey[]): string {
  if (path[0] !== 'cases' || typeof path[1] !== 'number') return '';
  const testCase = (raw as { cases?: unknown[] }).cases?.[path[1]];
  const name = (testCase as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && name !== '' ? ` (case "${name}")` : '';
}

type Issue = { path: PropertyKey[]; message: string; code?: string; errors?: Issue[][] };

/**
 * A case's request is a short form or a full request (`version`), and zod reports a bad one as
 * the union alone ("Invalid input"): the issues of the form the case uses are shown instead.
 */
function requestIssues(raw: unknown, issue: Issue): Issue[] {
  const [cases, index, request] = issue.path;
  if (issue.code !== 'invalid_union' || cases !== 'cases' || request !== 'request' || issue.path.length !== 3)
    return [issue];
  const given = (raw as { cases: Array<{ request?: unknown }> }).cases[index as number]?.request;
  const full = typeof given === 'object' && given !== null && 'version' in given;
  const branch = issue.errors?.[full ? 1 : 0];
  return branch?.length ? branch.map((i) => ({ ...i, path: [...issue.path, ...i.path] })) : [issue];
}

/** Loads, validates and runs; throws CommandError with the exit code the failure deserves. */
export function policyTestResults(io: CliIo, policyFile: string, casesFile: string): CaseResult[] {
  const policy = policySchemas().policy.safeParse(readJson(io, policyFile, 'policy file', EXIT.failure));
  if (!policy.success) {
    const lines = policy.error.issues.map((issue) => `  ${formatPath(issue.path)}: ${issue.message}`);
    throw new CommandError(`${policyFile} is not a valid policy:\n${lines.join('\n')}`, EXIT.failure);
  }
  const raw = readJson(io, casesFile, 'cases file', EXIT.usage);
  const cases = policyCasesSchema().safeParse(raw);
  if (!cases.success) {
    const lines = (cases.error.issues as Issue[])
      .flatMap((issue) => requestIssues(raw, issue))
      .map((issue) => `  ${formatPath(issue.path)}: ${issue.message}${caseNamed(raw, issue.path)}`);
    throw new CommandError(`${casesFile} is not a valid cases file:\n${lines.join('\n')}`, EXIT.usage);
  }
  const names = cases.data.cases.map((c) => c.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) throw new CommandError(`${casesFile}: case name "${repeated}" is used twice`, EXIT.usage);
  return runCases(policy.data, cases.data);
}

/** What the worker does; where the policy asks and the worker cannot, why it does not ask. */
function gotCell(result: CaseResult): string {
  return result.notAsked ? `${result.got} (not asked: ${NOT_ASKED_SHORT[result.notAsked]})` : result.got;
}

export async function policyTestCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parse(args, { json: { type: 'boolean' } }, POLICY_TEST_USAGE, {
    min: 0,
    max: 2,
  });
  if (help) return printHelp(io, POLICY_TEST_USAGE);
  const policyFile = policyFileOf(io.env, positionals[0]);
  const casesFile = positionals[1] ?? 'policy.cases.json';
  const results = policyTestResults(io, policyFile, casesFile);
  const failed = results.filter((r) => !r.pass);
  if (values.json) {
    io.stdout(
      JSON.stringify({ passed: results.length - failed.length, failed: failed.length, results }, null, 2),
    );
  } else {
    io.stdout(
      renderTable(
        ['', 'case', 'expected', 'got', 'rule'],
        results.map((r) => [r.pass ? 'ok' : 'FAIL', r.name, r.expected, gotCell(r), r.rule]),
      ),
    );
    for (const r of failed) io.stdout(`FAIL ${r.name}: ${r.problem}\n     reason: ${r.reason}`);
    io.stdout(`${results.length - failed.length} passed, ${failed.length} failed`);
  }
  return failed.length > 0 ? EXIT.failure : EXIT.ok;
}
