/**
 * Spec 2.13 leaves the nullability of fields not marked open; a platform that writes `null` for an
 * experiment without a launched group (`launchedGroupID`, `decisionTime`), a config in no team
 * (`team`) or outside a pipeline (`releasePipelineID`) made the read fail: a mutation's answer was
 * told "did not match the spec", a read (the chat-ops reads, the sweeper's) failed outright. Every
 * field a response schema reads as optional now takes null too; the fields that identify the
 * object (`id`, a metric source's or team's `name`, a trigger action's `phaseID`) stay required.
 */
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import {
  conditionSchema,
  configRuleSchema,
  dynamicConfigSchema,
  experimentGroupSchema,
  experimentSchema,
  healthCheckMetadataSchema,
  healthCheckSchema,
  metricSchema,
  metricSourceSchema,
  ownerSchema,
  paginationSchema,
  segmentConditionSchema,
  segmentRulesSchema,
  segmentSchema,
  teamMemberSchema,
  teamSchema,
  triggerActionSchema,
  triggerSchema,
  variantSchema,
} from '../../src/console/index.js';
import { ok, useScriptedServer } from './helpers/scripted-server.js';

/** `null` for every key the object schema reads as optional. */
function nullsFor(schema: z.ZodMiniType): Record<string, null> {
  const shape = (
    schema as unknown as { _zod: { def: { shape: Record<string, { _zod: { optin?: string } }> } } }
  )._zod.def.shape;
  return Object.fromEntries(
    Object.entries(shape)
      .filter(([, field]) => field._zod.optin === 'optional')
      .map(([key]) => [key, null]),
  );
}

describe('response schemas', () => {
  it.each([
    ['trigger', triggerSchema(), { id: 'trg_1' }],
    ['trigger action', triggerActionSchema(), { timeMs: 1, phaseID: 'ph_1' }],
    ['dynamic config', dynamicConfigSchema(), { id: 'cfg_1' }],
    ['config rule', configRuleSchema(), {}],
    ['config condition', conditionSchema(), {}],
    ['config variant', variantSchema(), {}],
    ['experiment', experimentSchema(), { id: 'exp_1' }],
    ['experiment group', experimentGroupSchema(), { name: 'control' }],
    ['health check', healthCheckSchema(), { name: 'srm' }],
    ['health check metadata', healthCheckMetadataSchema(), {}],
    ['metric', metricSchema(), { id: 'm::sum' }],
    ['metric source', metricSourceSchema(), { name: 'purchases' }],
    ['team', teamSchema(), { name: 'growth' }],
    ['team member', teamMemberSchema(), {}],
    ['owner', ownerSchema(), {}],
    ['pagination', paginationSchema(), { itemsPerPage: 10, pageNumber: 1, totalItems: 0 }],
    ['segment rules', segmentRulesSchema(), {}],
    ['segment condition', segmentConditionSchema(), {}],
  ] as const)('reads a %s holding null in every optional field', (_, schema, required) => {
    const nulls = nullsFor(schema);
    expect(Object.keys(nulls).length).toBeGreaterThan(0);
    const result = schema.safeParse({ ...required, ...nulls });
    expect(result.error?.issues).toBeUndefined();
    expect(result.data).toMatchObject(nulls);
  });

  it('reads a segment of either kind holding null in its optional fields', () => {
    const nulls = { isEnabled: null, description: null, lastModifierName: null, count: null, tags: null };
    for (const segment of [
      { id: 'seg_1', type: 'id_list', ...nulls },
      { id: 'seg_2', type: 'rule_based', rules: { name: null, conditions: null }, ...nulls },
    ])
      expect(segmentSchema().safeParse(segment).error?.issues).toBeUndefined();
  });

  it('still refuses null where the object is named (its id)', () => {
    expect(triggerSchema().safeParse({ id: null }).success).toBe(false);
    expect(experimentSchema().safeParse({ id: null }).success).toBe(false);
  });
});

describe('mutation answers holding null', () => {
  const { server, client } = useScriptedServer();

  it('reads an experiment with no launched group, no decision time and no team', async () => {
    const experiment = {
      id: 'exp_1',
      launchedGroupID: null,
      decisionTime: null,
      team: null,
      teamID: null,
      groups: [{ name: 'control', id: null, disabled: true, description: null }],
    };
    server.setScript(() => ok(experiment));
    await expect(
      client().experiments.disableGroups('exp_1', { group_names: ['control'] }),
    ).resolves.toMatchObject(experiment);
  });

  it('reads an archived config in no team and no pipeline', async () => {
    const config = {
      id: 'cfg_1',
      team: null,
      teamID: null,
      releasePipelineID: null,
      owner: { ownerEmail: null },
    };
    server.setScript(() => ok(config));
    await expect(
      client().dynamicConfigs.archive('cfg_1', { forceArchive: true, archiveReason: 'unused' }),
    ).resolves.toMatchObject(config);
  });

  it('reads an approved trigger with no phase end time and no description', async () => {
    const trigger = {
      id: 'trg_1',
      currentPhaseEndTime: null,
      description: null,
      gateID: null,
      actions: null,
    };
    server.setScript(() => ok(trigger));
    await expect(
      client().releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' }),
    ).resolves.toMatchObject(trigger);
  });
});
