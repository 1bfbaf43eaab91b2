/**
 * policy.schema.json refuses what the zod schema refuses, where JSON Schema can say it: a deny
 * or ask rule with windows (or outsideWindows, maxPerHour), an event rule that neither enqueues
 * nor notifies. What it cannot say (a window starting and ending at the same time, a real time
 * zone, a freeze ending after it starts, unique rule names) README names as the loader's alone.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { policyJsonSchemaText } from '../../src/policy/json-schema.js';
import { policySchemas } from '../../src/policy/schema.js';

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const addFormats = ((formatsPlugin as { default?: unknown }).default ??
  formatsPlugin) as typeof formatsPlugin.default;
addFormats(ajv);
const validate = ajv.compile(JSON.parse(policyJsonSchemaText()));

const rule = (extra: Record<string, unknown>) => ({
  version: 1,
  approvals: { rules: [{ name: 'r', when: { requesters: ['ci:*'] }, ...extra }] },
});

describe('policy.schema.json and the zod schema', () => {
  it.each([
    [
      'a deny rule with windows',
      rule({ decision: 'deny', windows: [{ days: ['fri'], start: '12:00', end: '18:00' }] }),
    ],
    ['an ask rule with maxPerHour', rule({ decision: 'ask', maxPerHour: 3 })],
    ['a deny rule with outsideWindows', rule({ decision: 'deny', outsideWindows: 'deny' })],
    [
      'an event rule that neither enqueues nor notifies',
      { version: 1, sweeper: { eventRules: [{ name: 'e', match: { name: 'x' } }] } },
    ],
    [
      'an event rule with notify false and no enqueue',
      { version: 1, sweeper: { eventRules: [{ name: 'e', match: { name: 'x' }, notify: false }] } },
    ],
  ])('both refuse %s', (_name, policy) => {
    expect(policySchemas().policy.safeParse(policy).success).toBe(false);
    expect(validate(policy)).toBe(false);
  });

  it.each([
    [
      'an approve rule with windows and maxPerHour',
      rule({
        decision: 'approve',
        maxPerHour: 3,
        windows: [{ days: ['fri'], start: '12:00', end: '18:00' }],
      }),
    ],
    ['a deny rule without them', rule({ decision: 'deny' })],
    [
      'an event rule that notifies',
      { version: 1, sweeper: { eventRules: [{ name: 'e', match: { name: 'x' }, notify: true }] } },
    ],
  ])('both accept %s', (_name, policy) => {
    expect(policySchemas().policy.safeParse(policy).success).toBe(true);
    expect(validate(policy), JSON.stringify(validate.errors)).toBe(true);
  });

  it('names a window that starts and ends at once among the rules only the loader checks', () => {
    const policy = rule({ decision: 'approve', windows: [{ days: ['mon'], start: '09:00', end: '09:00' }] });
    expect(policySchemas().policy.safeParse(policy).success).toBe(false);
    expect(validate(policy)).toBe(true);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('a window that starts and ends at the same time');
  });
});
