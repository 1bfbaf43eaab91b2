/**
 * The JSON Schemas generated from the zod schemas, as text, so that editors complete and check
 * policy and test-case files. The output is deterministic; `npm run policy:schema`
 * (src/cli/policy-schema.ts) writes and checks the committed files.
 *
 * The JSON Schema describes the file as written (zod's input side: defaults are optional).
 * It cannot express every rule zod checks (a real IANA zone, a freeze ending after it starts,
 * unique rule names): the zod schema stays the authority (at synth, and at start for any policy
 * file a function was not built with).
 */
import { z } from 'zod';
import { policyCasesSchema } from './cases.js';
import { policySchemas } from './schema.js';

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
