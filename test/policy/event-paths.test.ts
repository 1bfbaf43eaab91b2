/**
 * docs/policy.md: "Every object is strict: an unknown key is an error with its path", and an
 * event rule's `match` maps an event field (`name`, `value`, `source`, `userID`, `metadata.x`)
 * to a glob. `match` took any key: a misspelt path (`metdata.phaseID`, `userId`) was accepted and
 * never matched (a missing field never matches), so the rule silently never fired. The same for
 * `staleConfigs.exposureEvents[].configIdFrom`: a misspelt path recorded no exposure, ever, and
 * every watched config came to look unused. Both are refused now, in zod and in
 * policy.schema.json, with their paths.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { policyJsonSchemaText } from '../../src/policy/json-schema.js';
import { policySchemas } from '../../src/policy/schema.js';
import { eventField } from '../../src/sweeper/event-fields.js';
import { formatPath } from '../../src/util/zod-issues.js';

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
const addFormats = ((formatsPlugin as { default?: unknown }).default ??
  formatsPlugin) as typeof formatsPlugin.default;
addFormats(ajv);
const editor = ajv.compile(JSON.parse(policyJsonSchemaText()));

const withMatch = (match: Record<string, string>) => ({
  version: 1,
  sweeper: { eventRules: [{ name: 'e', match, notify: true }] },
});
const withExposure = (configIdFrom: string) => ({
  version: 1,
  sweeper: { staleConfigs: { exposureEvents: [{ name: 'config_exposure', configIdFrom }] } },
});

function problems(policy: unknown): string[] {
  const result = policySchemas().policy.safeParse(policy);
  return result.success ? [] : result.error.issues.map((i) => `${formatPath(i.path)}: ${i.message}`);
}

describe('event field paths in the policy', () => {
  it.each([['metdata.phaseID'], ['userId'], ['metadata'], ['metadata.'], ['metadata..phase'], ['Name']])(
    'a match on "%s" is refused, with its path, by zod and by the JSON Schema',
    (path) => {
      const policy = withMatch({ name: 'release_checks_passed', [path]: 'x' });
      expect(problems(policy).join('\n')).toContain('sweeper.eventRules[0].match');
      expect(editor(policy)).toBe(false);
    },
  );

  it.each([['metdata.config'], ['config']])('configIdFrom "%s" is refused', (path) => {
    expect(problems(withExposure(path)).join('\n')).toContain(
      'sweeper.staleConfigs.exposureEvents[0].configIdFrom',
    );
    expect(editor(withExposure(path))).toBe(false);
  });

  it.each([
    ['name'],
    ['source'],
    ['userID'],
    ['value'],
    ['timestamp'],
    ['metadata.phaseID'],
    ['metadata.deploy.env'],
  ])('"%s", a path the sweeper reads, is accepted', (path) => {
    expect(problems(withMatch({ [path]: '*' }))).toEqual([]);
    expect(problems(withExposure(path))).toEqual([]);
    expect(editor(withMatch({ [path]: '*' }))).toBe(true);
    const event = {
      timestamp: 1,
      name: 'n',
      source: 's',
      userID: 'u',
      value: 'v',
      metadata: { phaseID: 'p', deploy: { env: 'e' } },
    };
    expect(eventField(event as never, path)).toBeDefined();
  });
});
