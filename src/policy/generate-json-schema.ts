/**
 * `npm run policy:schema`: writes `policy.schema.json` (repo root) from the zod schema, so
 * editors complete and check policy files. The output is deterministic and committed;
 * `--check` exits 1 when the committed file is out of date (for CI).
 *
 * The JSON Schema describes the file as written (zod's input side: defaults are optional).
 * It cannot express every rule zod checks (a real IANA zone, a freeze ending after it starts,
 * unique rule names): the zod schema stays the authority (at synth, and at start for any policy
 * file a function was not built with).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { policyCasesSchema } from './cases.js';
import { policySchemas } from './schema.js';

export const POLICY_SCHEMA_PATH = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../policy.schema.json',
);

/** The JSON Schema text: stable key order (zod's, which follows the schema source), two-space indent, final newline. */
export function policyJsonSchemaText(): string {
  const schema = z.toJSONSchema(policySchemas().policy, { io: 'input', target: 'draft-2020-12' });
  const document = {
    $schema: schema.$schema,
    title: 'console-autopilot policy',
    description:
      'Who may have which Console API mutation, when. Deny by default; freezes and pause beat every rule. ' +
      'See README, "Policy file".',
    ...schema,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

export const CASES_SCHEMA_PATH = resolve(dirname(POLICY_SCHEMA_PATH), 'policy.cases.schema.json');

/** The JSON Schema of a policy test cases file (`autopilot policy test`), written like the policy's. */
export function casesJsonSchemaText(): string {
  const schema = z.toJSONSchema(policyCasesSchema(), { io: 'input', target: 'draft-2020-12' });
  const document = {
    $schema: schema.$schema,
    title: 'console-autopilot policy test cases',
    description:
      'What a policy is expected to decide; run with `npx autopilot policy test`. See README, "Policy as code".',
    ...schema,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function main(argv: readonly string[]): number {
  const outputs: Array<[string, string]> = [
    [POLICY_SCHEMA_PATH, policyJsonSchemaText()],
    [CASES_SCHEMA_PATH, casesJsonSchemaText()],
  ];
  if (argv.includes('--check')) {
    let code = 0;
    for (const [path, text] of outputs) {
      let current = '';
      try {
        current = readFileSync(path, 'utf8');
      } catch {
        // missing counts as out of date
      }
      if (current === text) continue;
      console.error(`${path} is out of date: run npm run policy:schema`);
      code = 1;
    }
    return code;
  }
  for (const [path, text] of outputs) {
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
