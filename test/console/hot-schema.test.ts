/**
 * Differential: a response schema compiled by zod (`z.compile`, used once a schema is hot:
 * src/console/hot-schema.ts) reads every platform response exactly as the schema itself does.
 * The responses are the sandbox's real answers to every operation, each schema paired with the
 * raw JSON it was given (the client's parse is watched); then fast-check mutates them (a value
 * replaced by any JSON, a key dropped, an unknown or hostile key added) and both readings must
 * agree: the same success, the same data (key order and prototype included), the same issues.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as z from 'zod/mini';

type Sample = { schema: z.ZodMiniType; json: unknown };
const samples: Sample[] = [];

vi.mock('../../src/console/hot-schema.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/console/hot-schema.js')>();
  return {
    ...original,
    hot: (schema: z.ZodMiniType) => ({
      safeParse: (json: unknown) => {
        samples.push({ schema, json: structuredClone(json) });
        return schema.safeParse(json);
      },
    }),
  };
});

const { COMPILE_AFTER, compiled, hot } = await vi.importActual<
  typeof import('../../src/console/hot-schema.js')
>('../../src/console/hot-schema.js');
const { createConsoleClient } = await import('../../src/console/index.js');
const { startSandbox } = await import('../../src/sandbox/index.js');

let running: Awaited<ReturnType<typeof startSandbox>>;

beforeAll(async () => {
  running = await startSandbox({ rateLimits: false, eventCount: 40 });
  const client = createConsoleClient({ baseUrl: running.url, apiKey: 'sandbox-key', mutationBudget: false });
  const s = running.sandbox.state;
  const all = async <T>(items: AsyncIterable<T>) => {
    for await (const _ of items);
  };
  for (const id of s.roles.keys()) await client.roles.get(id);
  await client.roles.update([...s.roles.keys()][0] as string, { permissions: {} });
  for (const id of s.segments.keys()) await client.segments.get(id);
  await all(client.segments.list({ limit: 7 }));
  for (const id of [...s.configs.keys()].slice(0, 3))
    await client.dynamicConfigs.archive(id, { forceArchive: true, archiveReason: 'unused' });
  for (const id of s.metrics.keys()) await client.metrics.update(id, { tags: ['hot'] });
  await all(client.metrics.listByEvent('purchase'));
  await all(client.metricSources.list());
  await all(client.events.list({ limit: 15 }));
  const experiment = [...s.experiments.values()][0];
  if (experiment)
    await client.experiments.disableGroups(experiment.id, {
      group_names: [experiment.groups[0]?.name as string],
    });
  await client.experiments.createQualifyingEvent({
    name: 'hot_schema_event',
    sql: 'select 1',
    timestampColumn: 'ts',
    idTypeMapping: [{ serviceUnitID: 'userID', column: 'user_id' }],
  });
  const trigger = [...s.triggers.values()][0];
  if (trigger) await client.releasePipelineTriggers.approve(trigger.id, { phaseID: trigger.currentPhaseID });
  await client.teams.create({
    name: 'Hot Schema Team',
    members: ['ada.lovelace@example.com'],
    admins: ['ada.lovelace@example.com'],
    defaultGateMetrics: [],
    defaultExperimentPrimaryMetrics: [{ name: 'purchases', type: 'event_count' }],
    defaultExperimentSecondaryMetrics: [],
    defaultHoldoutMetrics: [],
    defaultTargetApplications: ['web'],
    changeTeamConfigs: 'team_only',
    reviewApproval: 'admin_only',
  });
});
afterAll(() => running?.close());

type Path = Array<string | number>;

/** Every place in a JSON value: objects' keys and arrays' indexes. */
function pathsOf(value: unknown, at: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [at];
  const own = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...own.flatMap((key) => pathsOf((value as Record<string, unknown>)[key], [...at, key]))];
}

/** `json` with one change at `path`: a new value, the key dropped, or a key added beside it. */
function mutated(json: unknown, path: Path, change: { kind: string; value: unknown; key: string }): unknown {
  const copy = structuredClone(json);
  if (path.length === 0) return change.kind === 'replace' ? change.value : copy;
  let parent = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (change.kind === 'replace') parent[last] = change.value;
  else if (change.kind === 'drop') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (!Array.isArray(parent)) {
    // As JSON.parse builds it: an own property, even for `__proto__`.
    Object.defineProperty(parent, change.key, {
      value: change.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * A value as a tree of what can differ: each object's prototype, its own keys in order (and
 * whether each is enumerable), and the leaves. (toStrictEqual cannot compare objects holding an
 * own `constructor` key, which JSON can bring: it compares those as the objects' types.)
 */
function anatomy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return [typeof value, value];
  const proto = Object.getPrototypeOf(value);
  const kind =
    proto === Object.prototype
      ? 'object'
      : proto === Array.prototype
        ? 'array'
        : proto === null
          ? 'bare'
          : 'other';
  const record = value as Record<PropertyKey, unknown>;
  return [
    kind,
    Reflect.ownKeys(record).map((key) => [
      String(key),
      Object.getOwnPropertyDescriptor(record, key)?.enumerable,
      anatomy(record[key]),
    ]),
  ];
}

function expectSameReading(schema: z.ZodMiniType, fast: z.ZodMiniType, json: unknown): void {
  const runtime = schema.safeParse(structuredClone(json));
  const compiledResult = fast.safeParse(structuredClone(json));
  expect(compiledResult.success).toBe(runtime.success);
  if (runtime.success && compiledResult.success) {
    expect(anatomy(compiledResult.data)).toEqual(anatomy(runtime.data));
  } else {
    expect(anatomy(compiledResult.error?.issues)).toEqual(anatomy(runtime.error?.issues));
  }
}

const change = fc.record({
  kind: fc.constantFrom('replace', 'drop', 'add'),
  value: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(null, '', 0, -1, 1.5, 2 ** 53, true, [], {}, 'id_list', 'rule_based'),
  ),
  key: fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.constantFrom('__proto__', 'constructor', 'type', 'data', 'id'),
  ),
});

describe('a response schema compiled by zod', () => {
  it('is compiled for every response schema the client uses, each one met on real answers', () => {
    const schemas = new Set(samples.map((s) => s.schema));
    expect(schemas.size).toBeGreaterThanOrEqual(10);
    // Schemas zod cannot compile keep their runtime parser (events' transforms may be one).
    const uncompiled = [...schemas].filter((schema) => compiled(schema) === schema);
    expect(uncompiled.length).toBeLessThanOrEqual(1);
  });

  it('reads every real answer as the schema itself does', () => {
    for (const { schema, json } of samples) expectSameReading(schema, compiled(schema), json);
  });

  it('reads every mutated answer as the schema itself does', () => {
    const pairs = [...new Map(samples.map((s) => [s.schema, s])).values()].map((s) => ({
      ...s,
      fast: compiled(s.schema),
      paths: pathsOf(s.json),
    }));
    fc.assert(
      fc.property(fc.nat(), fc.nat(), change, (which, where, what) => {
        const { schema, fast, json, paths } = pairs[which % pairs.length] as (typeof pairs)[number];
        expectSameReading(schema, fast, mutated(json, paths[where % paths.length] as Path, what));
      }),
      { numRuns: 3000 },
    );
  });

  it('is what `hot` hands out from the COMPILE_AFTER-th parse on, the schema itself before', () => {
    const schema = samples[0]?.schema as z.ZodMiniType;
    for (let use = 1; use < COMPILE_AFTER; use++) expect(hot(schema)).toBe(schema);
    const fast = hot(schema);
    expect(fast).not.toBe(schema);
    expect(hot(schema)).toBe(fast);
  });
});
