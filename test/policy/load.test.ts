import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { POLICY_SCHEMA_PATH } from '../../src/cli/policy-schema.js';
import { PolicyError } from '../../src/policy/errors.js';
import { policyJsonSchemaText } from '../../src/policy/json-schema.js';
import { normalizedPolicyText, parsePolicy } from '../../src/policy/parse.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { loadPolicyFile, normalizePolicyFile, policySha256 } from '../../src/wiring/policy-file.js';
import { policyInputArb } from './arbitraries.js';
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

/** The test policy with one more approval rule, first. */
function withRule(rule: Record<string, unknown>) {
  const rules = [rule, ...testPolicyInput.approvals.rules];
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
    [
      // A deny or ask rule decides at once: windows on it would be ignored and it would deny at all hours.
      'windows on a deny rule ("no Friday-afternoon deploys" above "approve CI")',
      withRule({
        name: 'no Friday-afternoon deploys',
        when: { requesters: ['ci:*'] },
        decision: 'deny',
        windows: [{ days: ['fri'], start: '15:00', end: '24:00' }],
      }),
      'approvals.rules[0].windows: only an "approve" rule has windows: a "deny" rule decides at any time',
    ],
    [
      'outsideWindows on an ask rule',
      withRule({ name: 'ask', when: {}, decision: 'ask', outsideWindows: 'deny' }),
      'approvals.rules[0].outsideWindows: only an "approve" rule has outsideWindows',
    ],
    [
      'maxPerHour on a deny rule',
      withRule({ name: 'no', when: {}, decision: 'deny', maxPerHour: 5 }),
      'approvals.rules[0].maxPerHour: only an "approve" rule has maxPerHour',
    ],
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

function thrownBy(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected it to throw');
}

/** Parses and validates a policy text, and normalizes the result. */
const renormalize = (text: string) => normalizedPolicyText(parsePolicy(JSON.parse(text), 'normalized'));

/** A template the event rules may enqueue: one per action, with `{field}` placeholders and literals. */
const templateValueArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.constantFrom('{metadata.triggerID}', '{metadata.phaseID}', '{value}'),
);
const enqueueArb = fc.oneof(
  fc.record(
    {
      action: fc.constant('approve_phase' as const),
      triggerId: templateValueArb,
      phaseId: templateValueArb,
      reason: templateValueArb,
    },
    { requiredKeys: ['action', 'triggerId', 'phaseId'] },
  ),
  fc.record(
    {
      action: fc.constant('disable_groups' as const),
      experimentId: templateValueArb,
      groupNames: fc.array(templateValueArb, { minLength: 1, maxLength: 3 }),
      reason: templateValueArb,
    },
    { requiredKeys: ['action', 'experimentId', 'groupNames'] },
  ),
  fc.record(
    {
      action: fc.constant('archive_config' as const),
      configId: templateValueArb,
      reason: templateValueArb,
      force: fc.boolean(),
    },
    { requiredKeys: ['action', 'configId'] },
  ),
);

/** An event field path: a top-level field, or a path into the metadata. */
const eventPathArb = fc.oneof(
  fc.constantFrom('name', 'source', 'userID', 'value', 'timestamp'),
  fc
    .array(
      fc.string({ minLength: 1, maxLength: 6 }).filter((key) => !key.includes('.')),
      {
        minLength: 1,
        maxLength: 2,
      },
    )
    .map((keys) => `metadata.${keys.join('.')}`),
);

/** What the generated policies leave out: event rules with templates to enqueue, notifications, a `$schema`. */
const extrasArb = fc.record(
  {
    $schema: fc.constant('./policy.schema.json'),
    // Unique names, as the schema requires (an array of them shrank to two rules named "H").
    eventRules: fc.uniqueArray(
      fc.record(
        {
          name: fc.string({ minLength: 1, maxLength: 20 }),
          // Keys are event field paths the sweeper reads (the schema refuses any other).
          match: fc.dictionary(eventPathArb, fc.string(), { maxKeys: 3 }),
          enqueue: enqueueArb,
          notify: fc.constant(true),
        },
        { requiredKeys: ['name', 'match', 'notify'] },
      ),
      { maxLength: 3, selector: (rule) => rule.name },
    ),
    eventOrder: fc.constantFrom('auto', 'newest-first', 'oldest-first'),
    slackWebhookUrl: fc.webUrl(),
    staleAfterDays: fc.integer({ min: 1, max: 400 }),
  },
  { requiredKeys: [] },
);

const normalizationInputArb: fc.Arbitrary<PolicyInput> = fc
  .tuple(policyInputArb, extrasArb)
  .map(([input, { $schema, eventRules, eventOrder, slackWebhookUrl, staleAfterDays }]) => ({
    ...input,
    ...($schema === undefined ? {} : { $schema }),
    sweeper: {
      ...input.sweeper,
      ...(eventRules === undefined ? {} : { eventRules }),
      ...(eventOrder === undefined ? {} : { eventOrder }),
      ...(staleAfterDays === undefined
        ? {}
        : { staleConfigs: { ...input.sweeper?.staleConfigs, staleAfterDays } }),
    },
    ...(slackWebhookUrl === undefined ? {} : { notifications: { slackWebhookUrl } }),
  }));

/**
 * The bundle ships the normalized policy and trusts its digest: `loadPolicyFile` returns
 * `JSON.parse` of those bytes instead of validating them. Here the digest the build would define
 * is set on `globalThis`, which is what the unbundled code reads (esbuild replaces it in a bundle).
 */
describe('the build-validated policy', () => {
  afterEach(() => {
    globalThis.__AUTOPILOT_VALIDATED_POLICY_SHA256__ = undefined;
  });

  it('normalizes to a text that validates to exactly itself, for any valid policy', () => {
    fc.assert(
      fc.property(normalizationInputArb, (input) => {
        const policy = parsePolicy(input, 'generated policy');
        const text = normalizedPolicyText(policy);
        // What the fast path returns is what validating the same bytes returns.
        expect(JSON.parse(text)).toEqual(parsePolicy(JSON.parse(text), 'normalized'));
        expect(renormalize(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('is normalized at bundling: validated, defaults filled in, the digest of exactly the shipped bytes', () => {
    const bundled = normalizePolicyFile(join(ROOT, 'policy.json'));
    const raw = readFileSync(join(ROOT, 'policy.json'), 'utf8');
    expect(bundled.text).toBe(normalizedPolicyText(parsePolicy(JSON.parse(raw))));
    expect(bundled.text).not.toBe(raw);
    expect(JSON.parse(bundled.text).sweeper.eventOrder).toBe('auto'); // a default the file leaves out
    expect(renormalize(bundled.text)).toBe(bundled.text);
    expect(bundled.sha256).toBe(policySha256(Buffer.from(bundled.text, 'utf8')));
    expect(bundled.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses to bundle an invalid policy, naming every path', () => {
    const file = join(dir, 'bundle-bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        ...withWindow({ days: ['mon'], start: '9:00', end: '17:00' }),
        timezone: 'Mars/Base',
      }),
    );
    const error = thrownBy(() => normalizePolicyFile(file));
    expect(error).toBeInstanceOf(PolicyError);
    expect(error.message).toContain(`policy file ${file} is not a valid policy:`);
    expect(error.message).toContain('approvals.rules[1].windows[0].start: expected a time of day as HH:MM');
    expect(error.message).toContain('timezone: expected an IANA time zone');
  });

  it('is returned as shipped when its bytes have the digest the build defined', () => {
    const bundled = normalizePolicyFile(join(ROOT, 'policy.json'));
    const file = join(dir, 'bundled.json');
    writeFileSync(file, bundled.text);
    globalThis.__AUTOPILOT_VALIDATED_POLICY_SHA256__ = bundled.sha256;
    expect(loadPolicyFile(file)).toEqual(bundled.policy);
  });

  it('is validated in full when one byte differs from the digest, and fails with the zod path', () => {
    const bundled = normalizePolicyFile(join(ROOT, 'policy.json'));
    globalThis.__AUTOPILOT_VALIDATED_POLICY_SHA256__ = bundled.sha256;
    const tampered = bundled.text.replace('"Europe/Berlin"', '"Europe/Berlix"');
    expect(tampered.length).toBe(bundled.text.length);
    const file = join(dir, 'tampered.json');
    writeFileSync(file, tampered);
    expect(() => loadPolicyFile(file)).toThrow(
      `policy file ${file} is not a valid policy: timezone: expected an IANA time zone`,
    );
    // One byte more (a space) that keeps it valid: validated, and the same policy.
    writeFileSync(file, bundled.text.replace('{', '{ '));
    expect(loadPolicyFile(file)).toEqual(bundled.policy);
  });

  it('trusts the digest alone: a file with the defined digest is not validated (which is why only the build defines it)', () => {
    // An invalid policy whose digest is (wrongly) the defined one takes the fast path: proof that
    // the fast path runs no zod at all. Without a digest, the same file fails with its path.
    const invalid = `${JSON.stringify({ ...testPolicyInput, timezone: 'Mars/Base' }, null, 2)}\n`;
    const file = join(dir, 'trusted-invalid.json');
    writeFileSync(file, invalid);
    expect(() => loadPolicyFile(file)).toThrow(/timezone: expected an IANA time zone/);
    globalThis.__AUTOPILOT_VALIDATED_POLICY_SHA256__ = policySha256(invalid);
    expect(loadPolicyFile(file).timezone).toBe('Mars/Base');
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
