/**
 * Review (policy check): an approve rule with `outsideWindows` but no `windows` was accepted and
 * the field ignored: the rule approves at any time, so `"outsideWindows": "deny"` written to keep
 * approvals to office hours (the windows forgotten, or deleted later) kept nothing out. Like the
 * approve-only fields on a deny or ask rule, it is now an error with its path, in the loader and in
 * policy.schema.json alike.
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

const dir = mkdtempSync(join(tmpdir(), 'autopilot-outside-windows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policy = (rule: Record<string, unknown>) => ({
  version: 1,
  approvals: {
    rules: [
      { name: 'CI approves', when: { requesters: ['ci:*'] }, decision: 'approve', maxPerHour: 5, ...rule },
    ],
  },
});

const issues = (value: unknown) => {
  const result = policySchemas().policy.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
};

describe('outsideWindows on an approve rule without windows', () => {
  it('is refused with its path, saying the rule approves at any time', () => {
    const found = issues(policy({ outsideWindows: 'deny' }));
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('approvals.rules[0].outsideWindows: ');
    expect(found[0]).toContain('windows');
    expect(found[0]).toContain('any time');
  });

  it('is refused for "defer" too (ignored just the same)', () => {
    expect(issues(policy({ outsideWindows: 'defer' }))[0]).toContain('approvals.rules[0].outsideWindows: ');
  });

  it('is accepted beside windows', () => {
    const windows = [{ days: ['mon'], start: '09:00', end: '17:00' }];
    expect(issues(policy({ outsideWindows: 'deny', windows }))).toEqual([]);
  });

  it('is refused by policy.schema.json as well', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    const addFormats = ((formatsPlugin as { default?: unknown }).default ??
      formatsPlugin) as typeof formatsPlugin.default;
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(policyJsonSchemaText()));
    expect(validate(policy({ outsideWindows: 'deny' }))).toBe(false);
    expect(
      validate(
        policy({ outsideWindows: 'deny', windows: [{ days: ['mon'], start: '09:00', end: '17:00' }] }),
      ),
    ).toBe(true);
  });

  it('fails policy check with the path', async () => {
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify(policy({ outsideWindows: 'deny' })));
    const t = captureIo({ cwd: dir });
    expect(await runCli(['policy', 'check', file], t.io)).toBe(1);
    expect(t.err()).toContain('approvals.rules[0].outsideWindows: ');
  });
});
