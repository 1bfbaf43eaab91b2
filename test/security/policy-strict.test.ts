/**
 * Issue 12 item 9: a misspelt key anywhere in the policy is an error with its path, in
 * `policy check` (the zod schema the build uses) and in the committed JSON Schema editors use;
 * every field is described; event-rule templates are typed per action.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');
const shipped = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));
const jsonSchema = JSON.parse(readFileSync(join(REPO, 'policy.schema.json'), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'autopilot-policy-strict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
// ajv-formats is CommonJS with `exports.default`; depending on the loader's interop the plugin is the import or its `default`.
const addFormats = ((formatsPlugin as { default?: unknown }).default ??
  formatsPlugin) as typeof formatsPlugin.default;
addFormats(ajv);
const validate = ajv.compile(jsonSchema);

// biome-ignore lint/suspicious/noExplicitAny: each edit reaches into the policy's JSON by hand
type Edit = (policy: Record<string, any>) => void;

const typos: [string, Edit, string, string][] = [
  [
    'sweeper.staleConfigs.dryrun',
    (p) => {
      p.sweeper.staleConfigs.dryrun = false;
    },
    'sweeper.staleConfigs',
    '/sweeper/staleConfigs',
  ],
  [
    'sweeper.staleConfigs.staleAfterdays',
    (p) => {
      p.sweeper.staleConfigs.staleAfterdays = 5;
    },
    'sweeper.staleConfigs',
    '/sweeper/staleConfigs',
  ],
  [
    'notifications.slackWebhookURL',
    (p) => {
      p.notifications.slackWebhookURL = 'https://hooks.slack.test/x';
    },
    'notifications',
    '/notifications',
  ],
  [
    'sweeper.eventrules',
    (p) => {
      p.sweeper.eventrules = [];
    },
    'sweeper',
    '/sweeper',
  ],
  [
    'sweeper.eventRules[1].notfy',
    (p) => {
      p.sweeper.eventRules[1].notfy = true;
    },
    'sweeper.eventRules[1]',
    '/sweeper/eventRules/1',
  ],
  [
    'sweeper.staleConfigs.exposureEvents[0].configIDFrom',
    (p) => {
      p.sweeper.staleConfigs.exposureEvents[0].configIDFrom = 'x';
    },
    'sweeper.staleConfigs.exposureEvents[0]',
    '/sweeper/staleConfigs/exposureEvents/0',
  ],
  [
    'an enqueue template field of another action (phaseID)',
    (p) => {
      p.sweeper.eventRules[0].enqueue.phaseID = '{metadata.phaseID}';
    },
    'sweeper.eventRules[0].enqueue',
    '/sweeper/eventRules/0/enqueue',
  ],
];

const io = () => captureIo({ cwd: dir, now: () => new Date(0) });

describe('a misspelt policy key', () => {
  it.each(typos)('%s fails policy check with its path', async (name, edit, zodPath) => {
    const policy = structuredClone(shipped);
    edit(policy);
    const file = join(dir, `${name.replace(/\W+/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(policy));
    const t = io();
    const code = await runCli(['policy', 'check', file], t.io).catch(() => 1);
    expect(code).toBe(1);
    expect(t.err()).toContain(`${zodPath}:`);
    expect(t.err()).toMatch(/Unrecognized key|Invalid input/);
  });

  it.each(typos)('%s fails the JSON Schema at its path', (_name, edit, _zodPath, pointer) => {
    const policy = structuredClone(shipped);
    edit(policy);
    expect(validate(policy)).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath)).toContain(pointer);
  });

  it('an enqueue template missing a target field of its action fails with the path', async () => {
    const policy = structuredClone(shipped);
    delete policy.sweeper.eventRules[0].enqueue.phaseId;
    const file = join(dir, 'no-phase.json');
    writeFileSync(file, JSON.stringify(policy));
    const t = io();
    expect(await runCli(['policy', 'check', file], t.io).catch(() => 1)).toBe(1);
    expect(t.err()).toContain('sweeper.eventRules[0].enqueue.phaseId:');
    expect(validate(policy)).toBe(false);
  });
});

describe('the JSON Schema', () => {
  /** Every object schema, wherever it sits. */
  /**
   * A rule's subschema (src/policy/schema/primitives.ts, withJsonSchema) defines no field: it only
   * asserts about fields its object defines, each with `{}` (present) or a `const`.
   */
  function assertsOnly(properties: Record<string, Record<string, unknown>>): boolean {
    return Object.values(properties).every(
      (p) => Object.keys(p).length === 0 || (Object.keys(p).length === 1 && 'const' in p),
    );
  }

  function objects(node: unknown, at = '#'): [string, Record<string, unknown>][] {
    if (node === null || typeof node !== 'object') return [];
    const here = node as Record<string, unknown>;
    const own: [string, Record<string, unknown>][] =
      here.properties && !assertsOnly(here.properties as Record<string, Record<string, unknown>>)
        ? [[at, here]]
        : [];
    return [
      ...own,
      ...Object.entries(here).flatMap(([key, child]) =>
        key === 'default' || key === 'examples' ? [] : objects(child, `${at}/${key}`),
      ),
    ];
  }

  it('closes every object (additionalProperties: false)', () => {
    const open = objects(jsonSchema).filter(([, o]) => o.additionalProperties !== false);
    expect(open.map(([at]) => at)).toEqual([]);
    expect(objects(jsonSchema).length).toBeGreaterThan(15);
  });

  it('describes every field for editor hover', () => {
    const undescribed = objects(jsonSchema).flatMap(([at, o]) =>
      Object.entries(o.properties as Record<string, Record<string, unknown>>)
        .filter(([key, field]) => key !== 'action' && !hasDescription(field))
        .map(([key]) => `${at}/properties/${key}`),
    );
    expect(undescribed).toEqual([]);
  });
});

/** A field is described on itself, or on a `$ref`'d definition. */
function hasDescription(field: Record<string, unknown>): boolean {
  if (typeof field.description === 'string') return true;
  const ref = field.$ref;
  if (typeof ref !== 'string') return false;
  const target = ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], jsonSchema);
  return typeof (target as Record<string, unknown> | undefined)?.description === 'string';
}
