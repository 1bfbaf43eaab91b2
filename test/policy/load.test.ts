import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { POLICY_SCHEMA_PATH, policyJsonSchemaText } from '../../src/policy/generate-json-schema.js';
import { loadPolicyFile, PolicyError, parsePolicy } from '../../src/policy/load.js';
import { testPolicyInput } from './fixtures.js';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'policy-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function messageOf(value: unknown): string {
  try {
    parsePolicy(value, 'policy');
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return (error as Error).message;
  }
  throw new Error('expected the policy to be rejected');
}

/** The test policy with one approval rule's window replaced. */
function withWindow(window: Record<string, unknown>) {
  const rules = structuredClone(testPolicyInput.approvals.rules) as Array<Record<string, unknown>>;
  rules[1] = { ...rules[1], windows: [window] };
  return { ...testPolicyInput, approvals: { ...testPolicyInput.approvals, rules } };
}

describe('parsePolicy', () => {
  it.each([
    [
      'a time that is not HH:MM',
      withWindow({ days: ['mon'], start: '9:00', end: '17:00' }),
      'approvals.rules[1].windows[0].start: expected a time of day as HH:MM',
    ],
    [
      'an hour past 23',
      withWindow({ days: ['mon'], start: '09:00', end: '25:00' }),
      'approvals.rules[1].windows[0].end: expected a time of day as HH:MM',
    ],
    [
      'a window starting at 24:00',
      withWindow({ days: ['mon'], start: '24:00', end: '06:00' }),
      'approvals.rules[1].windows[0].start',
    ],
    [
      'a window that starts and ends at the same time',
      withWindow({ days: ['mon'], start: '09:00', end: '09:00' }),
      'approvals.rules[1].windows[0]: a window must not start and end at the same time',
    ],
    [
      'an empty list of windows',
      {
        ...testPolicyInput,
        approvals: { rules: [{ name: 'r', when: {}, decision: 'approve', windows: [] }] },
      },
      'approvals.rules[0].windows',
    ],
    [
      'an unknown day',
      withWindow({ days: ['mon', 'funday'], start: '09:00', end: '17:00' }),
      'approvals.rules[1].windows[0].days[1]',
    ],
    [
      'a window with a typo in a key',
      withWindow({ days: ['mon'], start: '09:00', end: '17:00', ends: '18:00' }),
      'approvals.rules[1].windows[0]: Unrecognized key: "ends"',
    ],
    [
      'an unknown time zone',
      { ...testPolicyInput, timezone: 'Europe/Atlantis' },
      'timezone: expected an IANA time zone',
    ],
    [
      'a freeze that ends before it starts',
      {
        ...testPolicyInput,
        approvals: {
          ...testPolicyInput.approvals,
          freezes: [{ name: 'x', start: '2026-12-20T00:00:00Z', end: '2026-12-19T00:00:00Z' }],
        },
      },
      'approvals.freezes[0].end: a freeze must end after it starts',
    ],
    [
      'an unknown top-level key',
      { ...testPolicyInput, approval: {} },
      '(root): Unrecognized key: "approval"',
    ],
    [
      'two rules with the same name',
      {
        ...testPolicyInput,
        approvals: {
          ...testPolicyInput.approvals,
          rules: [...testPolicyInput.approvals.rules, testPolicyInput.approvals.rules[0]],
        },
      },
      'approvals.rules[5].name: duplicate rule name "no night triggers"',
    ],
    [
      'an unknown chat grant',
      { ...testPolicyInput, chat: { teams: ['T1'], grants: { U1: ['approve_phase', 'delete_everything'] } } },
      'chat.grants.U1[1]',
    ],
    ['a wrong version', { ...testPolicyInput, version: 2 }, 'version'],
  ])('rejects %s with the zod path', (_name, value, expected) => {
    expect(messageOf(value)).toContain(expected);
  });

  it('reports every problem at once', () => {
    const broken = {
      ...withWindow({ days: ['someday'], start: '9am', end: '17:00' }),
      timezone: 'Mars/Olympus_Mons',
      extra: true,
    };
    const message = messageOf(broken);
    for (const path of [
      'approvals.rules[1].windows[0].days[0]',
      'approvals.rules[1].windows[0].start',
      'timezone',
      'Unrecognized key: "extra"',
    ]) {
      expect(message).toContain(path);
    }
  });

  it('fills defaults for a minimal policy (deny by default)', () => {
    const policy = parsePolicy({ version: 1 });
    expect(policy.timezone).toBe('UTC');
    expect(policy.approvals).toEqual({ rules: [], freezes: [], maxDeferHours: 72, otherwise: 'deny' });
    expect(policy.chat).toEqual({ teams: [], grants: {} });
  });
});

describe('loadPolicyFile', () => {
  it('loads the default policy at the repository root', () => {
    const policy = loadPolicyFile(join(ROOT, 'policy.json'));
    expect(policy.timezone).toBe('Europe/Berlin');
    expect(policy.actions.archive_config?.protect).toEqual(['checkout_*']);
  });

  it('names the file and the path of a problem', () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ version: 1, timezone: 'Nowhere/Land' }));
    expect(() => loadPolicyFile(file)).toThrow(`policy file ${file} is not a valid policy: timezone:`);
  });

  it('says when the file is not JSON or cannot be read', () => {
    const file = join(dir, 'not-json.json');
    writeFileSync(file, '{ "version": 1, }');
    expect(() => loadPolicyFile(file)).toThrow(/is not JSON/);
    expect(() => loadPolicyFile(join(dir, 'missing.json'))).toThrow(/cannot read policy file/);
  });
});

describe('policy.schema.json', () => {
  it('is the committed output of npm run policy:schema', () => {
    expect(readFileSync(POLICY_SCHEMA_PATH, 'utf8')).toBe(policyJsonSchemaText());
  });

  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  // ajv-formats is CommonJS with `exports.default`; depending on the loader's interop the plugin is the import or its `default`.
  const addFormats = ((formatsPlugin as { default?: unknown }).default ??
    formatsPlugin) as typeof formatsPlugin.default;
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(policyJsonSchemaText()));

  it('accepts the default policy.json and the test policy', () => {
    const policy: unknown = JSON.parse(readFileSync(join(ROOT, 'policy.json'), 'utf8'));
    expect(validate(policy), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(testPolicyInput), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['an unknown top-level key', { ...testPolicyInput, approval: {} }, '/'],
    [
      'a bad time',
      withWindow({ days: ['mon'], start: '9:00', end: '17:00' }),
      '/approvals/rules/1/windows/0/start',
    ],
    [
      'an unknown day',
      withWindow({ days: ['funday'], start: '09:00', end: '17:00' }),
      '/approvals/rules/1/windows/0/days/0',
    ],
    [
      'a freeze without an offset',
      { ...testPolicyInput, approvals: { freezes: [{ name: 'f', start: '2026-12-20', end: '2027-01-04' }] } },
      '/approvals/freezes/0/start',
    ],
  ])('lets an editor flag %s', (_name, value, path) => {
    expect(validate(value)).toBe(false);
    expect(validate.errors?.map((error) => error.instancePath)).toContain(path === '/' ? '' : path);
  });

  it('is what policy.json refers to', () => {
    const policy = JSON.parse(readFileSync(join(ROOT, 'policy.json'), 'utf8')) as { $schema?: string };
    expect(policy.$schema).toBe('./policy.schema.json');
  });
});
