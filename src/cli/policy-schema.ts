/**
 * `npm run policy:schema`: writes `policy.schema.json` and `policy.cases.schema.json` (repo root)
 * from the zod schemas (src/policy/json-schema.ts). The files are committed; `--check` exits 1
 * when one is out of date (for CI).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { casesJsonSchemaText, policyJsonSchemaText } from '../policy/json-schema.js';

export const POLICY_SCHEMA_PATH = resolve(
  dirname(fileURLToPath(import.meta.url)),
  '../../policy.schema.json',
);

export const CASES_SCHEMA_PATH = resolve(dirname(POLICY_SCHEMA_PATH), 'policy.cases.schema.json');

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
