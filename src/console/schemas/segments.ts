/** Segments (spec 2.6, 4.3): a union on `type`, `id_list` or `rule_based`. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';

export const segmentConditionSchema = once(() =>
  z.looseObject({
    type: z.optional(z.string()),
    operator: z.optional(z.string()),
    targetValue: z.optional(z.unknown()),
    field: z.optional(z.string()),
    customID: z.optional(z.string()),
  }),
);

export const segmentRulesSchema = once(() =>
  z.looseObject({
    name: z.optional(z.string()),
    passPercentage: z.optional(z.number()),
    conditions: z.optional(z.array(segmentConditionSchema())),
    returnValue: z.optional(z.record(z.string(), z.unknown())),
  }),
);

/** The fields both kinds of segment have: built once and shared by both schemas. */
const segmentFields = once(() => ({
  id: z.string(),
  isEnabled: z.optional(z.boolean()),
  description: z.optional(z.string()),
  lastModifierName: z.optional(z.string()),
  lastModifierID: z.optional(z.string()),
  count: z.optional(z.number().check(z.int())),
  tags: z.optional(z.array(z.string())),
}));

export const idListSegmentSchema = once(() =>
  z.looseObject({ ...segmentFields(), type: z.literal('id_list') }),
);
export const ruleBasedSegmentSchema = once(() =>
  z.looseObject({
    ...segmentFields(),
    type: z.literal('rule_based'),
    rules: segmentRulesSchema(),
  }),
);

export const segmentSchema = once(() =>
  z.discriminatedUnion('type', [idListSegmentSchema(), ruleBasedSegmentSchema()]),
);
export type Segment = z.infer<ReturnType<typeof segmentSchema>>;
