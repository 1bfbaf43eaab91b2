/**
 * The client keeps a response as parsed when fastCheckOf's predicate says yes (src/console/fast-check.ts):
 * that yes must mean zod accepts it AND zod's output holds the same data. Checked against zod on
 * the sandbox's real bodies and on random mutations of them (a field replaced by any JSON value,
 * removed, an unknown field added, an own `__proto__`); every "no" is left to zod, whose issues
 * (with their paths) the client still reports.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { fastCheckOf } from '../../src/console/fast-check.js';
import {
  envelope,
  listEnvelope,
  metricSchema,
  metricSourceSchema,
  qualifyingEventSchema,
  ResponseValidationError,
  segmentSchema,
  teamSchema,
  triggerSchema,
} from '../../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { ok, SEGMENT, useScriptedServer } from './helpers/scripted-server.js';

const TRIGGER = {
  id: 'trg_1',
  releasePipelineID: 'pl_1',
  status: 'in_progress',
  currentPhaseID: 'ph_2',
  createdTime: 1_700_000_000_000,
  actions: [{ timeMs: 1_700_000_000_500, phaseID: 'ph_1', actorName: 'Ada', actorID: null }],
};

let running: RunningSandbox;
const samples: Array<{ name: string; schema: z.ZodMiniType; value: unknown }> = [];

beforeAll(async () => {
  running = await startSandbox({ rateLimits: false, eventCount: 20 });
  const read = async (path: string) =>
    (await fetch(`${running.url}${path}`, { headers: { 'SERVICE-API-KEY': 'sandbox-key' } })).json();
  const lists: Array<[string, z.ZodMiniType, string]> = [
    ['segments', segmentSchema(), '/console/v1/segments?limit=50'],
    ['metrics', metricSchema(), '/console/v1/metrics/list?limit=50'],
    ['metric sources', metricSourceSchema(), '/console/v1/metrics/metric_source/list?limit=50'],
    ['teams', teamSchema(), '/console/v1/users/teams?limit=50'],
    ['qualifying events', qualifyingEventSchema(), '/console/v1/experiments/qualifying_events?limit=50'],
  ];
  for (const [name, item, path] of lists) {
    const body = (await read(path)) as { data?: unknown[] };
    if (!Array.isArray(body.data)) continue;
    samples.push({ name: `${name} page`, schema: listEnvelope(item), value: body });
    for (const data of body.data.slice(0, 5))
      samples.push({ name, schema: envelope(item), value: { message: 'ok', data } });
  }
  samples.push({
    name: 'trigger',
    schema: envelope(triggerSchema()),
    value: { message: 'ok', data: TRIGGER },
  });
  samples.push({
    name: 'segment',
    schema: envelope(segmentSchema()),
    value: { message: 'ok', data: SEGMENT },
  });
});
afterAll(() => running.close());

/** Every path to a value inside `value` (the root included). */
function pathsOf(value: unknown, at: PropertyKey[] = []): PropertyKey[][] {
  const out = [at];
  if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) out.push(...pathsOf(inner, [...at, key]));
  return out;
}

type Mutation =
  | { kind: 'replace'; pick: number; with: unknown }
  | { kind: 'remove'; pick: number }
  | { kind: 'add'; pick: number; key: string; with: unknown }
  | { kind: 'proto'; pick: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('replace' as const),
    pick: fc.nat(),
    with: fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(null, '', 'x', 'id_list', 'rule_based', 1.5, -0, 2 ** 60, true, [], {}),
    ),
  }),
  fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('add' as const),
    pick: fc.nat(),
    key: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('constructor', 'toString', 'type')),
    with: fc.jsonValue({ maxDepth: 1 }),
  }),
  fc.record({ kind: fc.constant('proto' as const), pick: fc.nat() }),
);

/** `value` with the mutations applied, then written as JSON and parsed back (as a response is). */
function mutated(value: unknown, mutations: Mutation[]): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  for (const m of mutations) {
    const paths = pathsOf(copy);
    const path = paths[m.pick % paths.length] as PropertyKey[];
    const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<PropertyKey, unknown>)[k], copy);
    const target = path.reduce<unknown>((o, k) => (o as Record<PropertyKey, unknown>)[k], copy);
    const last = path[path.length - 1];
    // A copy: fast-check hands out the same constant objects again, and one placed twice could nest in itself.
    const given = (m.kind === 'replace' || m.kind === 'add') && JSON.parse(JSON.stringify(m.with ?? null));
    if (m.kind === 'replace' && last !== undefined) (parent as Record<PropertyKey, unknown>)[last] = given;
    if (m.kind === 'remove' && last !== undefined) {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete (parent as Record<PropertyKey, unknown>)[last];
    }
    if (m.kind === 'add' && target && typeof target === 'object' && !Array.isArray(target))
      Object.defineProperty(target, m.key, {
        value: given,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    if (m.kind === 'proto' && target && typeof target === 'object' && !Array.isArray(target))
      Object.defineProperty(target, '__proto__', {
        value: {},
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return JSON.parse(JSON.stringify(copy));
}

describe('fastCheckOf', () => {
  it('says yes to every real body of the sandbox, and zod reads each to the same data', () => {
    expect(samples.length).toBeGreaterThan(10);
    for (const { name, schema, value } of samples) {
      const check = fastCheckOf(schema);
      expect(check, name).toBeDefined();
      expect(check?.(value), name).toBe(true);
      const result = schema.safeParse(value);
      expect(result.success, name).toBe(true);
      expect(result.data, name).toStrictEqual(value);
    }
  });

  it('says yes to a mutated body only when zod accepts it and reads it to the same data', () => {
    let yes = 0;
    let no = 0;
    fc.assert(
      fc.property(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 }), (pick, mutations) => {
        const { schema, value } = samples[pick % samples.length] as (typeof samples)[number];
        const input = mutated(value, mutations);
        if (!fastCheckOf(schema)?.(input)) {
          no++;
          return;
        }
        yes++;
        const result = schema.safeParse(input);
        expect(result.success).toBe(true);
        expect(result.data).toStrictEqual(input);
      }),
      { numRuns: 3000 },
    );
    // Both sides were exercised.
    expect(yes).toBeGreaterThan(100);
    expect(no).toBeGreaterThan(100);
  });

  it('leaves to zod what it cannot vouch for: an own __proto__, a float count, a one-letter name', () => {
    const schema = envelope(segmentSchema());
    const check = fastCheckOf(schema) as (value: unknown) => boolean;
    expect(check(JSON.parse('{"message":"ok","data":{"id":"s","type":"id_list","__proto__":{}}}'))).toBe(
      false,
    );
    expect(check({ message: 'ok', data: { ...SEGMENT, count: 1.5 } })).toBe(false);
    expect(check({ message: 'ok', data: { ...SEGMENT, type: 'other' } })).toBe(false);
    expect(check({ message: 'ok' })).toBe(false);
    // zod counts code points: a name of one letter (or one emoji, two UTF-16 units) meets minLength(1).
    const named = z.looseObject({ name: z.string().check(z.minLength(1)) });
    expect(fastCheckOf(named)?.({ name: 'p' })).toBe(false);
    expect(named.safeParse({ name: 'p' }).success).toBe(true);
    expect(fastCheckOf(named)?.({ name: 'pq' })).toBe(true);
    expect(fastCheckOf(named)?.({ name: '' })).toBe(false);
    // A strict object refuses a field it does not name; a loose one keeps it.
    const strict = z.strictObject({ key: z.string(), formula: z.nullish(z.string()) });
    expect(fastCheckOf(strict)?.({ key: 'k', formula: null })).toBe(true);
    expect(fastCheckOf(strict)?.({ key: 'k' })).toBe(true);
    expect(fastCheckOf(strict)?.({ key: 'k', extra: 1 })).toBe(false);
    expect(strict.safeParse({ key: 'k', extra: 1 }).success).toBe(false);
    expect(fastCheckOf(strict)?.({ formula: 'f' })).toBe(false);
  });
});

describe('fastCheckOf on schemas that carry checks of their own', () => {
  // Each is a check zod runs beside the type (a schema that is itself a check, or a wrapper's own
  // `.check`): the predicate must not say yes to what zod refuses.
  it.each([
    ['z.int() on its own', z.looseObject({ n: z.int() }), { n: 1.5 }],
    ['z.email()', z.looseObject({ s: z.email() }), { s: 'not-an-address' }],
    [
      'a nullable with a refinement',
      z.looseObject({ s: z.nullable(z.string()).check(z.refine((v) => v !== 'no')) }),
      { s: 'no' },
    ],
    [
      'an optional with a refinement',
      z.looseObject({ s: z.optional(z.string()).check(z.refine((v) => v !== 'no')) }),
      { s: 'no' },
    ],
  ] as const)('%s: no yes to a value zod refuses', (_name, schema, value) => {
    expect(schema.safeParse(value).success).toBe(false);
    expect(fastCheckOf(schema as z.ZodMiniType)?.(value) ?? false).toBe(false);
  });

  it('still vouches for z.int() on its own', () => {
    const schema = z.looseObject({ n: z.int() });
    expect(fastCheckOf(schema)?.({ n: 3 })).toBe(true);
    expect(fastCheckOf(schema)?.({ n: 2 ** 53 })).toBe(false);
  });
});

describe('the client with the quick check', () => {
  const scripted = useScriptedServer();
  const server = scripted.server;
  const client = () => scripted.client({ apiKey: 'sk-test-key-123456' });

  it('still refuses a malformed envelope with its path (an int that is not one, a missing message)', async () => {
    server.setScript(() => ok({ ...SEGMENT, count: 2.5 }));
    const error = (await client()
      .segments.get('seg_1')
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.kind).toBe('schema');
    expect(error.issues[0]?.path).toEqual(['data', 'count']);

    server.setScript(() => ({ status: 200, body: { data: SEGMENT } }));
    const missing = (await client()
      .segments.get('seg_1')
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(missing).toBeInstanceOf(ResponseValidationError);
    expect(missing.issues[0]?.path).toEqual(['message']);
  });

  it('returns a valid body whole, unknown fields included', async () => {
    server.setScript(() => ok({ ...SEGMENT, extra: { nested: [1, 2] } }));
    expect(await client().segments.get('seg_1')).toStrictEqual({ ...SEGMENT, extra: { nested: [1, 2] } });
  });
});
