/** Segments (spec 2.6, 4.3): a union on `type`, `id_list` or `rule_based`. */
import { z } from 'zod';

export const SegmentConditionSchema = z.looseObject({
  type: z.string().optional(),
  operator: z.string().optional(),
  targetValue: z.unknown(),
  field: z.string().optional(),
  customID: z.string().optional(),
});

export const SegmentRulesSchema = z.looseObject({
  name: z.string().optional(),
  passPercentage: z.number().optional(),
  conditions: z.array(SegmentConditionSchema).optional(),
  returnValue: z.record(z.string(), z.unknown()).optional(),
});

const segmentFields = {
  id: z.string(),
  isEnabled: z.boolean().optional(),
  description: z.string().optional(),
  lastModifierName: z.string().optional(),
  lastModifierID: z.string().optional(),
  count: z.number().int().optional(),
  tags: z.array(z.string()).optional(),
};

export const IdListSegmentSchema = z.looseObject({ ...segmentFields, type: z.literal('id_list') });
export const RuleBasedSegmentSchema = z.looseObject({
  ...segmentFields,
  type: z.literal('rule_based'),
  rules: SegmentRulesSchema,
});

export const SegmentSchema = z.discriminatedUnion('type', [IdListSegmentSchema, RuleBasedSegmentSchema]);
export type Segment = z.infer<typeof SegmentSchema>;
