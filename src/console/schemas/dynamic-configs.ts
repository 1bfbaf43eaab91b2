/** Dynamic configs (spec 2.5, 4.2) with rules, conditions, rollouts and variants. */
import { z } from 'zod';
import { OwnerSchema } from './common.js';

export const ConditionSchema = z.looseObject({
  targetValue: z.array(z.string()).optional(),
  operator: z.string().optional(),
  field: z.string().optional(),
  customID: z.string().optional(),
});

export const RolloutSchema = z.looseObject({ time: z.number(), passPercent: z.number() });

export const VariantSchema = z.looseObject({
  name: z.string().optional(),
  passPercentage: z.number().optional(),
  id: z.string().optional(),
  returnValue: z.record(z.string(), z.unknown()).optional(),
  returnValueJson5: z.string().optional(),
});

export const ConfigRuleSchema = z.looseObject({
  id: z.string().optional(),
  baseID: z.string().optional(),
  name: z.string().optional(),
  passPercentage: z.number().optional(),
  environments: z.array(z.string()).optional(),
  returnValue: z.record(z.string(), z.unknown()).optional(),
  returnValueJson5: z.string().optional(),
  conditions: z.array(ConditionSchema).optional(),
  completedAutomatedRollouts: z.array(RolloutSchema).optional(),
  pendingAutomatedRollouts: z.array(RolloutSchema).optional(),
  variants: z.array(VariantSchema).optional(),
});

export const DynamicConfigSchema = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  idType: z.string().optional(),
  isEnabled: z.boolean().optional(),
  isTemplate: z.boolean().optional(),
  version: z.number().int().optional(),
  checksPerHour: z.number().int().optional(),
  createdTime: z.number().optional(),
  lastModifiedTime: z.number().optional(),
  creatorID: z.string().optional(),
  creatorName: z.string().optional(),
  creatorEmail: z.string().optional(),
  lastModifierID: z.string().optional(),
  lastModifierName: z.string().optional(),
  lastModifierEmail: z.string().optional(),
  tags: z.array(z.string()).optional(),
  targetApps: z.string().optional(),
  holdoutIDs: z.array(z.string()).optional(),
  team: z.string().optional(),
  teamID: z.string().optional(),
  owner: OwnerSchema.optional(),
  defaultValue: z.record(z.string(), z.unknown()).optional(),
  defaultValueJson5: z.string().optional(),
  schema: z.string().optional(),
  schemaJson5: z.string().optional(),
  releasePipelineID: z.string().optional(),
  rules: z.array(ConfigRuleSchema).optional(),
});
export type DynamicConfig = z.infer<typeof DynamicConfigSchema>;

/**
 * Archive body: exactly the two fields the spec shows. Which are required is not shown, so
 * both are always sent (a server that requires them must not see a partial body).
 */
export const ArchiveConfigSchema = z.strictObject({
  forceArchive: z.boolean(),
  archiveReason: z.string(),
});
export type ArchiveConfig = z.input<typeof ArchiveConfigSchema>;
