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

function main(argv: readonly string[]): number {
  const text = policyJsonSchemaText();
  if (argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(POLICY_SCHEMA_PATH, 'utf8');
    } catch {
      // missing counts as out of date
    }
    if (current === text) return 0;
    console.error(`${POLICY_SCHEMA_PATH} is out of date: run npm run policy:schema`);
    return 1;
  }
  writeFileSync(POLICY_SCHEMA_PATH, text);
  console.log(`wrote ${POLICY_SCHEMA_PATH}`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
