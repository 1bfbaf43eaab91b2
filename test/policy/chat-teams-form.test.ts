/**
 * `chat.teams` lists the Slack team ids the webhook answers. It compares each with the `team_id`
 * Slack sends (`T…`, upper-case letters and digits) as is: an entry written as a requester
 * (`slack:T0001`), in lower case, or with a stray space matched no workspace, so every chat command
 * was refused while `policy check` said the policy was fine. Such an entry is now refused with its
 * path and the form expected.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { policyJsonSchemaText } from '../../src/policy/json-schema.js';
import { policySchemas } from '../../src/policy/schema.js';
import { formatPath } from '../../src/util/zod-issues.js';
import { captureIo } from '../helpers/cli-io.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-chat-teams-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const withTeams = (teams: string[]) => ({ version: 1, chat: { teams, grants: {} } });

const issues = (value: unknown) => {
  const result = policySchemas().policy.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
};

describe('chat.teams entries that are no Slack team id', () => {
  it.each([
    ['slack:T0001', 'write "T0001", not "slack:T0001"'],
    ['t0001', 'write "T0001", not "t0001"'],
    ['T0001 ', 'write "T0001", not "T0001 "'],
    [' T0001', 'write "T0001", not " T0001"'],
    ['acme-corp', 'T followed by upper-case letters and digits'],
    ['U0ADMIN', 'T followed by upper-case letters and digits'],
  ])('refuses "%s" with its path and the expected form', (team, hint) => {
    const found = issues(withTeams(['T0002', team]));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('chat.teams[1]: ');
    expect(found[0]).toContain(hint);
    expect(found[0]).toContain('team id');
  });

  it.each(['T0001', 'T1', 'T1DC2JH3J', 'T012AB3CD4E'])('accepts the team id "%s"', (team) => {
    expect(issues(withTeams([team]))).toEqual([]);
  });

  it('is refused by policy.schema.json as well, which accepts a team id', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    const addFormats = ((formatsPlugin as { default?: unknown }).default ??
      formatsPlugin) as typeof formatsPlugin.default;
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(policyJsonSchemaText()));
    expect(validate(withTeams(['slack:T0001']))).toBe(false);
    expect(validate(withTeams(['t0001']))).toBe(false);
    expect(validate(withTeams(['T0001']))).toBe(true);
  });

  it('fails policy check with the path and the expected form', async () => {
    const file = join(dir, 'requester-team.json');
    writeFileSync(file, JSON.stringify(withTeams(['slack:T0001'])));
    const t = captureIo({ cwd: dir });
    expect(await runCli(['policy', 'check', file], t.io)).toBe(1);
    expect(t.err()).toContain('chat.teams[0]: ');
    expect(t.err()).toContain('write "T0001", not "slack:T0001"');
  });
});
