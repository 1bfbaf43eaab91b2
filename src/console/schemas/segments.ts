/** Segments (spec 2.6, 4.3): a union on `type`, `id_list` or `rule_based`. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';

export const segmentConditionSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    type: z.nullish(z.string()),
    operator: z.nullish(z.string()),
    targetValue: z.nullish(z.unknown()),
    field: z.nullish(z.string()),
    customID: z.nullish(z.string()),
  }),
);

export const segmentRulesSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    name: z.nullish(z.string()),
    passPercentage: z.nullish(z.number()),
    conditions: z.nullish(z.array(segmentConditionSchema())),
    returnValue: z.nullish(z.record(z.string(), z.unknown())),
  }),
);

/** The fields both kinds of segment have: built once and shared by both schemas. */
const segmentFields = /* @__PURE__ */ once(() => ({
  id: z.string(),
  isEnabled: z.nullish(z.boolean()),
  description: z.nullish(z.string()),
  lastModifierName: z.nullish(z.string()),
  lastModifierID: z.nullish(z.string()),
  count: z.nullish(z.number().check(z.int())),
  tags: z.nullish(z.array(z.string())),
}));

export const idListSegmentSchema = /* @__PURE__ */ once(() =>
  z.looseObject({ ...segmentFields(), type: z.literal('id_list') }),
);
export const ruleBasedSegmentSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    ...segmentFields(),
    type: z.literal('rule_based'),
    rules: segmentRulesSchema(),
  }),
);

export const segmentSchema = /* @__PURE__ */ once(() =>
  z.discriminatedUnion('type', [idListSegmentSchema(), ruleBasedSegmentSchema()]),
);
export type Segment = z.infer<ReturnType<typeof segmentSchema>>;
