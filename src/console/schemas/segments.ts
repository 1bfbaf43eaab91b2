/** Segments (spec 2.6, 4.3): a union on `type`, `id_list` or `rule_based`. */
import * as z from 'zod/mini';

export const SegmentConditionSchema = z.lazy(() =>
  z.looseObject({
    type: z.optional(z.string()),
    operator: z.optional(z.string()),
    targetValue: z.unknown(),
    field: z.optional(z.string()),
    customID: z.optional(z.string()),
  }),
);

export const SegmentRulesSchema = z.lazy(() =>
  z.looseObject({
    name: z.optional(z.string()),
    passPercentage: z.optional(z.number()),
    conditions: z.optional(z.array(SegmentConditionSchema)),
    returnValue: z.optional(z.record(z.string(), z.unknown())),
  }),
);

const segmentFields = {
  id: z.string(),
  isEnabled: z.optional(z.boolean()),
  description: z.optional(z.string()),
  lastModifierName: z.optional(z.string()),
  lastModifierID: z.optional(z.string()),
  count: z.optional(z.number().check(z.int())),
  tags: z.optional(z.array(z.string())),
};

export const IdListSegmentSchema = z.lazy(() =>
  z.looseObject({ ...segmentFields, type: z.literal('id_list') }),
);
export const RuleBasedSegmentSchema = z.lazy(() =>
  z.looseObject({
    ...segmentFields,
    type: z.literal('rule_based'),
    rules: SegmentRulesSchema,
  }),
);

export const SegmentSchema = z.lazy(() =>
  z.discriminatedUnion('type', [IdListSegmentSchema, RuleBasedSegmentSchema]),
);
export type Segment = z.infer<typeof SegmentSchema>;
