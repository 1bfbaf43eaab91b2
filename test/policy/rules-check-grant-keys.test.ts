/**
 * Review (policy check): `chat.grants` keys were never checked. The webhook looks a person's
 * grants up by the user id Slack sends (`user_id` of a slash command, `user.id` of a click), and
 * refuses as malformed an id that is not letters, digits, `_` and `-`. A key written as a
 * requester (`"slack:U0ADMIN"`), a mention (`"<@U0ADMIN>"`) or a handle (`"@alice"`) can never be
 * such an id: it granted nobody and nothing said so. Those are now errors with their path and the
 * fix; a key the webhook could receive but Slack never sends as a user id (`"u0admin"`, a user
 * group `"S0RELEASE"`, a name) is a `policy check` warning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { policyJsonSchemaText } from '../../src/policy/json-schema.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { policySchemas } from '../../src/policy/schema.js';
import { policyWarnings } from '../../src/policy/warnings.js';
import { formatPath } from '../../src/util/zod-issues.js';
import { captureIo } from '../helpers/cli-io.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-grant-keys-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const withGrants = (grants: Record<string, string[]>) => ({
  version: 1,
  chat: { teams: ['T0001'], grants },
});

const issues = (value: unknown) => {
  const result = policySchemas().policy.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
};

const grantWarnings = (key: string) =>
  policyWarnings(parsePolicy(withGrants({ [key]: ['approve_phase'] }))).filter(
    (w) => w.code === 'grant-key-never-matches',
  );

describe('chat.grants keys the webhook can never match', () => {
  it.each([
    ['slack:U0ADMIN', 'write "U0ADMIN", not "slack:U0ADMIN"'],
    ['<@U0ADMIN>', 'write "U0ADMIN", not "<@U0ADMIN>"'],
    ['<@U0ADMIN|alice>', 'write "U0ADMIN", not "<@U0ADMIN|alice>"'],
    [' U0ADMIN', 'write "U0ADMIN", not " U0ADMIN"'],
    ['@alice', 'Slack user id'],
    ['alice@example.com', 'Slack user id'],
    ['U0*', 'not a glob'],
  ])('refuses "%s" with its path and the fix', (key, hint) => {
    const found = issues(withGrants({ [key]: ['approve_phase'], U0RM: ['pause'] }));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(`chat.grants.${key}: `);
    expect(found[0]).toContain(hint);
  });

  it('is refused by policy.schema.json as well, which accepts a user id', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    const addFormats = ((formatsPlugin as { default?: unknown }).default ??
      formatsPlugin) as typeof formatsPlugin.default;
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(policyJsonSchemaText()));
    expect(validate(withGrants({ 'slack:U0ADMIN': ['approve_phase'] }))).toBe(false);
    expect(validate(withGrants({ U0ADMIN: ['approve_phase'] }))).toBe(true);
  });

  it('fails policy check with the path and the hint', async () => {
    const file = join(dir, 'requester-key.json');
    writeFileSync(file, JSON.stringify(withGrants({ 'slack:U0ADMIN': ['approve_phase'] })));
    const t = captureIo({ cwd: dir });
    expect(await runCli(['policy', 'check', file], t.io)).toBe(1);
    expect(t.err()).toContain('chat.grants.slack:U0ADMIN: ');
    expect(t.err()).toContain('write "U0ADMIN", not "slack:U0ADMIN"');
  });
});

describe('chat.grants keys Slack never sends as a user id', () => {
  it.each([
    ['u0admin', 'write "U0ADMIN"'],
    ['S0RELEASE', 'user group'],
    ['T0001', 'team'],
    ['C0RELEASES', 'channel'],
    ['alice', 'U…'],
  ])('warns about "%s", naming the key and the fix', (key, hint) => {
    const warnings = grantWarnings(key);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.where).toBe(`chat.grants "${key}"`);
    expect(warnings[0]?.message).toContain(hint);
  });

  it.each(['U0ADMIN', 'U012AB3CD', 'W012A3CDE'])('says nothing about the user id "%s"', (key) => {
    expect(grantWarnings(key)).toEqual([]);
  });

  it('prints the warning in policy check, exit 0, and fails with --strict', async () => {
    const file = join(dir, 'lower-case.json');
    writeFileSync(file, JSON.stringify(withGrants({ u0admin: ['approve_phase'] })));
    const t = captureIo({ cwd: dir });
    expect(await runCli(['policy', 'check', file], t.io)).toBe(0);
    expect(t.out()).toContain('chat.grants "u0admin": ');
    expect(t.out()).toContain('write "U0ADMIN"');
    expect(await runCli(['policy', 'check', file, '--strict'], captureIo({ cwd: dir }).io)).toBe(1);
  });
});
