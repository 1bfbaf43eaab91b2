/** Dynamic configs (spec 2.5, 4.2) with rules, conditions, rollouts and variants. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';
import { ownerSchema } from './common.js';

export const conditionSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    targetValue: z.nullish(z.array(z.string())),
    operator: z.nullish(z.string()),
    field: z.nullish(z.string()),
    customID: z.nullish(z.string()),
  }),
);

export const rolloutSchema = /* @__PURE__ */ once(() =>
  z.looseObject({ time: z.nullish(z.number()), passPercent: z.nullish(z.number()) }),
);

export const variantSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    name: z.nullish(z.string()),
    passPercentage: z.nullish(z.number()),
    id: z.nullish(z.string()),
    returnValue: z.nullish(z.record(z.string(), z.unknown())),
    returnValueJson5: z.nullish(z.string()),
  }),
);

export const configRuleSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    id: z.nullish(z.string()),
    baseID: z.nullish(z.string()),
    name: z.nullish(z.string()),
    passPercentage: z.nullish(z.number()),
    environments: z.nullish(z.array(z.string())),
    returnValue: z.nullish(z.record(z.string(), z.unknown())),
    returnValueJson5: z.nullish(z.string()),
    conditions: z.nullish(z.array(conditionSchema())),
    completedAutomatedRollouts: z.nullish(z.array(rolloutSchema())),
    pendingAutomatedRollouts: z.nullish(z.array(rolloutSchema())),
    variants: z.nullish(z.array(variantSchema())),
  }),
);

export const dynamicConfigSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    id: z.string(),
    name: z.nullish(z.string()),
    description: z.nullish(z.string()),
    idType: z.nullish(z.string()),
    isEnabled: z.nullish(z.boolean()),
    isTemplate: z.nullish(z.boolean()),
    version: z.nullish(z.number().check(z.int())),
    checksPerHour: z.nullish(z.number().check(z.int())),
    createdTime: z.nullish(z.number()),
    lastModifiedTime: z.nullish(z.number()),
    creatorID: z.nullish(z.string()),
    creatorName: z.nullish(z.string()),
    creatorEmail: z.nullish(z.string()),
    lastModifierID: z.nullish(z.string()),
    lastModifierName: z.nullish(z.string()),
    lastModifierEmail: z.nullish(z.string()),
    tags: z.nullish(z.array(z.string())),
    targetApps: z.nullish(z.string()),
    holdoutIDs: z.nullish(z.array(z.string())),
    team: z.nullish(z.string()),
    teamID: z.nullish(z.string()),
    owner: z.nullish(ownerSchema()),
    defaultValue: z.nullish(z.record(z.string(), z.unknown())),
    defaultValueJson5: z.nullish(z.string()),
    schema: z.nullish(z.string()),
    schemaJson5: z.nullish(z.string()),
    releasePipelineID: z.nullish(z.string()),
    rules: z.nullish(z.array(configRuleSchema())),
  }),
);
export type DynamicConfig = z.infer<ReturnType<typeof dynamicConfigSchema>>;

/**
 * Archive body: exactly the two fields the spec shows. Which are required is not shown, so
 * both are always sent (a server that requires them must not see a partial body).
 */
export const archiveConfigSchema = /* @__PURE__ */ once(() =>
  z.strictObject({
    forceArchive: z.boolean(),
    archiveReason: z.string(),
  }),
);
export type ArchiveConfig = z.input<ReturnType<typeof archiveConfigSchema>>;
