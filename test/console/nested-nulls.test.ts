/**
 * Spec 2.13 leaves open the nullability of every field it does not mark, nested ones too. A
 * metric whose `lineage.events` is null, a metric source mapping with a null `column`, a rollout
 * with a null `time` failed the whole page or answer: a chat read answered an error, the answer to
 * a mutation that had happened was told "did not match the spec". Every field of a response schema,
 * at any depth, now takes null and absence, except the ones that name the object (`id`, `name`,
 * a trigger action's `phaseID`) and the ones the spec marks required or rules on.
 */
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import {
  dynamicConfigSchema,
  experimentSchema,
  metricSchema,
  metricSourceSchema,
  roleSchema,
  segmentSchema,
  teamSchema,
  triggerSchema,
} from '../../src/console/index.js';
import { newTeam, ok, page, useScriptedServer } from './helpers/scripted-server.js';

interface Def {
  type: string;
  shape?: Record<string, { _zod: { optin?: string; def: Def } }>;
  innerType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  options?: { _zod: { def: Def } }[];
  valueType?: { _zod: { def: Def } };
}

/** The dotted paths of every key, at any depth, that a response object requires. */
function requiredKeys(def: Def, at: string, out: string[] = []): string[] {
  switch (def.type) {
    case 'object':
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        if (field._zod.optin !== 'optional') out.push(`${at}.${key}`);
        requiredKeys(field._zod.def, `${at}.${key}`, out);
      }
      break;
    case 'optional':
    case 'nullable':
      if (def.innerType) requiredKeys(def.innerType._zod.def, at, out);
      break;
    case 'array':
      if (def.element) requiredKeys(def.element._zod.def, `${at}[]`, out);
      break;
    case 'union':
      for (const option of def.options ?? []) requiredKeys(option._zod.def, at, out);
      break;
    case 'record':
      if (def.valueType) requiredKeys(def.valueType._zod.def, `${at}{}`, out);
      break;
  }
  return out;
}
const required = (name: string, schema: z.ZodMiniType) =>
  [...new Set(requiredKeys((schema as unknown as { _zod: { def: Def } })._zod.def, name))].sort();

describe('response schemas, at every depth', () => {
  it.each([
    ['trigger', triggerSchema(), ['trigger.actions[].phaseID', 'trigger.id']],
    ['config', dynamicConfigSchema(), ['config.id']],
    [
      'experiment',
      experimentSchema(),
      [
        'experiment.cureCovariates[].name',
        'experiment.groups[].name',
        'experiment.healthChecks[].name',
        'experiment.id',
        'experiment.otherMetrics[].name',
        'experiment.preComputedUserDimensions[].name',
        'experiment.primaryMetrics[].name',
        'experiment.secondaryMetrics[].name',
        'experiment.summarySections[].name',
      ],
    ],
    ['metric', metricSchema(), ['metric.funnelEventList[].name', 'metric.id', 'metric.metricEvents[].name']],
    ['source', metricSourceSchema(), ['source.name']],
    [
      'team',
      teamSchema(),
      [
        'team.defaultExperimentPrimaryMetrics[].name',
        'team.defaultExperimentSecondaryMetrics[].name',
        'team.defaultGateMetrics[].name',
        'team.defaultHoldoutMetrics[].name',
        'team.name',
      ],
    ],
    // Spec 2.3: permissions are an object "whose values are all booleans".
    ['role', roleSchema(), ['role.name']],
    // `type` tells the two forms apart; `rules` is "present for rule_based" (spec 2.6).
    ['segment', segmentSchema(), ['segment.id', 'segment.rules', 'segment.type']],
  ] as const)('a %s requires only the fields that name it', (name, schema, expected) => {
    expect(required(name, schema)).toEqual([...expected].sort());
  });
});

describe('pages and answers holding null deep inside', () => {
  const { server, client } = useScriptedServer();

  it('lists the metrics of an event when one has no lineage events or metrics', async () => {
    const metrics = [
      { id: 'a::sum', lineage: { events: null, metrics: null } },
      { id: 'b::sum', lineage: {} },
    ];
    server.setScript(() => page(metrics, null));
    const result = await client().metrics.listByEvent('purchase');
    expect(result.data).toMatchObject(metrics);
  });

  it('lists metric sources when a mapping has no column or a field mapping no formula', async () => {
    const sources = [
      {
        name: 'purchases',
        idTypeMapping: [{ serviceUnitID: 'userID', column: null }, { serviceUnitID: null }],
        customFieldMapping: [{ key: 'k', formula: null }, { key: null }],
      },
    ];
    server.setScript(() => page(sources, null));
    const result = await client().metricSources.list();
    expect(result.data).toMatchObject(sources);
  });

  it('reads an archived config whose rollouts have no time or percentage', async () => {
    const config = {
      id: 'cfg_1',
      rules: [
        {
          completedAutomatedRollouts: [{ time: null, passPercent: null }],
          pendingAutomatedRollouts: [{}],
        },
      ],
    };
    server.setScript(() => ok(config));
    await expect(
      client().dynamicConfigs.archive('cfg_1', { forceArchive: true, archiveReason: 'unused' }),
    ).resolves.toMatchObject(config);
  });

  it('reads an experiment whose health checks, filters and links hold null', async () => {
    const experiment = {
      id: 'exp_1',
      assignmentSourceFilters: [{ column: 'country', values: null }, { column: null }],
      links: [{ url: null, title: 'doc' }],
      healthChecks: [
        {
          name: 'dedup',
          metadata: {
            deduplication_rates: [{ group_id: null, rate: null, group_name: null }],
            metrics: [{ metric_name: 'm', earliest_date: null, latest_date: null }],
          },
        },
      ],
    };
    server.setScript(() => ok(experiment));
    await expect(
      client().experiments.disableGroups('exp_1', { group_names: ['control'] }),
    ).resolves.toMatchObject(experiment);
  });

  it('reads an approved trigger whose action has no time', async () => {
    const trigger = { id: 'trg_1', actions: [{ phaseID: 'ph_1', timeMs: null }] };
    server.setScript(() => ok(trigger));
    await expect(
      client().releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' }),
    ).resolves.toMatchObject(trigger);
  });

  it('reads a team whose default metrics carry no type, and a role with no permissions', async () => {
    const team = { name: 'growth', defaultGateMetrics: [{ name: 'm', type: null }] };
    server.setScript(() => ok(team));
    await expect(client().teams.create(newTeam('growth', [], []))).resolves.toMatchObject(team);
    server.setScript(() => ok({ name: 'viewer', permissions: null }));
    await expect(client().roles.get('role_1')).resolves.toMatchObject({ name: 'viewer', permissions: null });
  });

  it('still refuses a null where the spec rules: a permission that is not a boolean', () => {
    expect(roleSchema().safeParse({ name: 'r', permissions: { create_configs: null } }).success).toBe(false);
  });
});
