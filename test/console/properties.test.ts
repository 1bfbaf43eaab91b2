/**
 * Property: whatever the sandbox answers — random ids, pages, limits and bodies across all
 * 13 operations — the client's schemas parse it. A response either parses, or is an API
 * error (400/404) from the error tree; never a ResponseValidationError.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  type ConsoleClient,
  createConsoleClient,
  PERMISSION_KEYS,
  RequestValidationError,
} from '../../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';

let running: RunningSandbox;
let client: ConsoleClient;
let ids: {
  roles: string[];
  configs: string[];
  segments: string[];
  experiments: string[];
  groups: string[];
  metrics: string[];
  triggers: string[];
  phases: string[];
  eventNames: string[];
};

beforeAll(async () => {
  running = await startSandbox({ rateLimits: false, eventCount: 300 });
  client = createConsoleClient({
    baseUrl: running.url,
    apiKey: 'sandbox-key',
    mutationBudget: false,
    maxRetries: 0,
  });
  const s = running.sandbox.state;
  ids = {
    roles: [...s.roles.keys()],
    configs: [...s.configs.keys()],
    segments: [...s.segments.keys()],
    experiments: [...s.experiments.keys()],
    groups: [...new Set([...s.experiments.values()].flatMap((e) => e.groups.map((g) => g.name)))],
    metrics: [...s.metrics.keys()],
    triggers: [...s.triggers.keys()],
    phases: ['ph_1', 'ph_2', 'ph_3', 'ph_4'],
    eventNames: [...new Set([...s.metrics.values()].flatMap((m) => m.lineage.events))],
  };
});
afterAll(() => running.close());

/** A known id most of the time, otherwise a random (often hostile) string. */
const idFrom = (known: () => string[]) =>
  fc.oneof(
    // `known` is read lazily: the ids come from the sandbox started in beforeAll.
    { weight: 4, arbitrary: fc.constant(null).chain(() => fc.constantFrom(...known())) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  );
const page = fc.integer({ min: 1, max: 12 });
const limit = fc.integer({ min: 1, max: 60 });
const word = fc.stringMatching(/^[a-z][a-z_]{0,10}$/);
const criteria = fc.array(
  fc.record({ column: word, values: fc.array(word, { maxLength: 3 }), nullVacuousOverride: fc.boolean() }),
  { maxLength: 2 },
);

type Operation = (c: ConsoleClient) => Promise<unknown>;

const operations: fc.Arbitrary<[string, Operation]> = fc.oneof(
  idFrom(() => ids.roles).map((id): [string, Operation] => [`roles.get ${id}`, (c) => c.roles.get(id)]),
  fc
    .tuple(
      idFrom(() => ids.roles),
      fc.dictionary(fc.constantFrom(...PERMISSION_KEYS), fc.boolean()),
    )
    .map(([id, permissions]): [string, Operation] => [
      `roles.update ${id}`,
      (c) => c.roles.update(id, { permissions }),
    ]),
  fc
    .tuple(
      idFrom(() => ids.configs),
      fc.boolean(),
      fc.string({ maxLength: 20 }),
    )
    .map(([id, forceArchive, archiveReason]): [string, Operation] => [
      `dynamicConfigs.archive ${id}`,
      (c) => c.dynamicConfigs.archive(id, { forceArchive, archiveReason }),
    ]),
  idFrom(() => ids.segments).map((id): [string, Operation] => [
    `segments.get ${id}`,
    (c) => c.segments.get(id),
  ]),
  fc
    .tuple(page, limit)
    .map(([p, l]): [string, Operation] => [
      `segments.list ${p} ${l}`,
      (c) => c.segments.list({ page: p, limit: l }),
    ]),
  fc
    .record(
      {
        name: word,
        sql: fc.constant('select 1'),
        timestampColumn: word,
        idTypeMapping: fc.array(fc.record({ serviceUnitID: word, column: word }), {
          minLength: 1,
          maxLength: 2,
        }),
        description: fc.string({ maxLength: 10 }),
        tags: fc.array(word, { maxLength: 2 }),
        sourceType: fc.constant('query' as const),
        dryRun: fc.boolean(),
      },
      { requiredKeys: ['name', 'sql', 'timestampColumn', 'idTypeMapping'] },
    )
    .map((body): [string, Operation] => [
      `createQualifyingEvent ${body.name}`,
      (c) => c.experiments.createQualifyingEvent(body),
    ]),
  fc
    .tuple(
      idFrom(() => ids.experiments),
      fc.array(
        idFrom(() => ids.groups),
        { minLength: 1, maxLength: 3 },
      ),
    )
    .map(([id, group_names]): [string, Operation] => [
      `disableGroups ${id} ${group_names}`,
      (c) => c.experiments.disableGroups(id, { group_names }),
    ]),
  fc
    .tuple(page, limit)
    .map(([p, l]): [string, Operation] => [
      `metricSources.list ${p} ${l}`,
      (c) => c.metricSources.list({ page: p, limit: l }),
    ]),
  fc
    .tuple(
      idFrom(() => ids.metrics),
      fc.record(
        {
          description: fc.string({ maxLength: 10 }),
          tags: fc.array(word, { maxLength: 2 }),
          isVerified: fc.boolean(),
          directionality: fc.constantFrom('increase' as const, 'decrease' as const),
          team: fc.option(word),
          dryRun: fc.boolean(),
          warehouseNative: fc.record(
            {
              metricSourceName: word,
              criteria,
              cap: fc.integer({ min: 0, max: 100 }),
              rollupTimeWindow: word,
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    )
    .map(([id, body]): [string, Operation] => [`metrics.update ${id}`, (c) => c.metrics.update(id, body)]),
  fc
    .tuple(
      idFrom(() => ids.eventNames),
      page,
      limit,
    )
    .map(([name, p, l]): [string, Operation] => [
      `listByEvent ${name}`,
      (c) => c.metrics.listByEvent(name, { page: p, limit: l }),
    ]),
  fc
    .tuple(page, limit)
    .map(([p, l]): [string, Operation] => [
      `events.list ${p} ${l}`,
      (c) => c.events.list({ page: p, limit: l }),
    ]),
  fc
    .tuple(
      idFrom(() => ids.triggers),
      idFrom(() => ids.phases),
    )
    .map(([id, phaseID]): [string, Operation] => [
      `approve ${id} ${phaseID}`,
      (c) => c.releasePipelineTriggers.approve(id, { phaseID }),
    ]),
  fc
    .record({ name: word, changeTeamConfigs: fc.constantFrom('anyone' as const, 'team_only' as const) })
    .map(({ name, changeTeamConfigs }): [string, Operation] => [
      `teams.create ${name}`,
      (c) =>
        c.teams.create({
          name,
          members: ['a.b@example.com'],
          admins: [],
          defaultGateMetrics: [{ name: 'errors', type: 'event_count' }],
          defaultExperimentPrimaryMetrics: [],
          defaultExperimentSecondaryMetrics: [],
          defaultHoldoutMetrics: [],
          defaultTargetApplications: [],
          changeTeamConfigs,
          reviewApproval: 'anyone',
          requireReviews: null,
        }),
    ]),
);

describe('every sandbox response parses with the client schemas', () => {
  it('for random operations, ids, pages, limits and bodies', async () => {
    const outcomes = { parsed: 0, apiErrors: 0 };
    await fc.assert(
      fc.asyncProperty(operations, async ([, operation]) => {
        try {
          await operation(client);
          outcomes.parsed++;
        } catch (error) {
          // Ids the client cannot send as one segment ('.', '..') are refused before sending.
          if (
            error instanceof RequestValidationError &&
            ['id', 'eventName'].includes(String(error.issues[0]?.path[0]))
          ) {
            return;
          }
          expect(error).toBeInstanceOf(ApiError);
          expect([400, 404]).toContain((error as ApiError).status);
          outcomes.apiErrors++;
        }
      }),
      { numRuns: 300 },
    );
    // Both branches are exercised, so the property is not vacuous.
    expect(outcomes.parsed).toBeGreaterThan(100);
    expect(outcomes.apiErrors).toBeGreaterThan(0);
  });
});
