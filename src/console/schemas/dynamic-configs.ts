/** Dynamic configs (spec 2.5, 4.2) with rules, conditions, rollouts and variants. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';
import { ownerSchema } from './common.js';

export const conditionSchema = once(() =>
  z.looseObject({
    targetValue: z.optional(z.array(z.string())),
    operator: z.optional(z.string()),
    field: z.optional(z.string()),
    customID: z.optional(z.string()),
  }),
);

export const rolloutSchema = once(() => z.looseObject({ time: z.number(), passPercent: z.number() }));

export const variantSchema = once(() =>
  z.looseObject({
    name: z.optional(z.string()),
    passPercentage: z.optional(z.number()),
    id: z.optional(z.string()),
    returnValue: z.optional(z.record(z.string(), z.unknown())),
    returnValueJson5: z.optional(z.string()),
  }),
);

export const configRuleSchema = once(() =>
  z.looseObject({
    id: z.optional(z.string()),
    baseID: z.optional(z.string()),
    name: z.optional(z.string()),
    passPercentage: z.optional(z.number()),
    environments: z.optional(z.array(z.string())),
    returnValue: z.optional(z.record(z.string(), z.unknown())),
    returnValueJson5: z.optional(z.string()),
    conditions: z.optional(z.array(conditionSchema())),
    completedAutomatedRollouts: z.optional(z.array(rolloutSchema())),
    pendingAutomatedRollouts: z.optional(z.array(rolloutSchema())),
    variants: z.optional(z.array(variantSchema())),
  }),
);

export const dynamicConfigSchema = once(() =>
  z.looseObject({
    id: z.string(),
    name: z.optional(z.string()),
    description: z.optional(z.string()),
    idType: z.optional(z.string()),
    isEnabled: z.optional(z.boolean()),
    isTemplate: z.optional(z.boolean()),
    version: z.optional(z.number().check(z.int())),
    checksPerHour: z.optional(z.number().check(z.int())),
    createdTime: z.optional(z.number()),
    lastModifiedTime: z.optional(z.number()),
    creatorID: z.optional(z.string()),
    creatorName: z.optional(z.string()),
    creatorEmail: z.optional(z.string()),
    lastModifierID: z.optional(z.string()),
    lastModifierName: z.optional(z.string()),
    lastModifierEmail: z.optional(z.string()),
    tags: z.optional(z.array(z.string())),
    targetApps: z.optional(z.string()),
    holdoutIDs: z.optional(z.array(z.string())),
    team: z.optional(z.string()),
    teamID: z.optional(z.string()),
    owner: z.optional(ownerSchema()),
    defaultValue: z.optional(z.record(z.string(), z.unknown())),
    defaultValueJson5: z.optional(z.string()),
    schema: z.optional(z.string()),
    schemaJson5: z.optional(z.string()),
    releasePipelineID: z.optional(z.string()),
    rules: z.optional(z.array(configRuleSchema())),
  }),
);
export type DynamicConfig = z.infer<ReturnType<typeof dynamicConfigSchema>>;

/**
 * Archive body: exactly the two fields the spec shows. Which are required is not shown, so
 * both are always sent (a server that requires them must not see a partial body).
 */
export const archiveConfigSchema = once(() =>
  z.strictObject({
    forceArchive: z.boolean(),
    archiveReason: z.string(),
  }),
);
export type ArchiveConfig = z.input<ReturnType<typeof archiveConfigSchema>>;
