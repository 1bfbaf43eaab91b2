/** Metrics (spec 2.8, 4.5), the `warehouseNative` update object and the update body. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';
import { ownerSchema } from './common.js';

export const METRIC_TYPES = ['sum', 'event_count', 'event_dau', 'event_user', 'event_count_custom', 'funnel'];

export const metricSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    /** `<metric_name>::<metric_type>` */
    id: z.string(),
    name: z.nullish(z.string()),
    type: z.nullish(z.string()),
    directionality: z.nullish(z.string()),
    description: z.nullish(z.string()),
    isPermanent: z.nullish(z.boolean()),
    isReadOnly: z.nullish(z.boolean()),
    isHidden: z.nullish(z.boolean()),
    isVerified: z.nullish(z.boolean()),
    tags: z.nullish(z.array(z.string())),
    creatorName: z.nullish(z.string()),
    creatorEmail: z.nullish(z.string()),
    createdTime: z.nullish(z.number()),
    owner: z.nullish(ownerSchema()),
    lineage: z.nullish(
      z.looseObject({ events: z.nullish(z.array(z.string())), metrics: z.nullish(z.array(z.string())) }),
    ),
    team: z.nullish(z.string()),
    unitTypes: z.nullish(z.array(z.string())),
    metricEvents: z.nullish(
      z.array(
        z.looseObject({
          name: z.string(),
          type: z.nullish(z.string()),
          criteria: z.nullish(z.array(z.unknown())),
        }),
      ),
    ),
    funnelCountDistinct: z.nullish(z.string()),
    funnelEventList: z.nullish(z.array(z.looseObject({ name: z.string(), type: z.nullish(z.string()) }))),
  }),
);
export type Metric = z.infer<ReturnType<typeof metricSchema>>;

/** `{column, values, nullVacuousOverride}`: the spec lists all three as the entry's shape. */
export const criteriaEntrySchema = /* @__PURE__ */ once(() =>
  z.strictObject({
    column: z.string(),
    values: z.array(z.string()),
    nullVacuousOverride: z.boolean(),
  }),
);

/** Every field of the spec's warehouseNative object; all optional, nothing else accepted. */
export const warehouseNativeSchema = /* @__PURE__ */ once(() =>
  z.strictObject({
    metricSourceName: z.optional(z.string()),
    criteria: z.optional(z.array(criteriaEntrySchema())),
    metricSources: z.optional(
      z.array(
        z.strictObject({
          metricSourceName: z.string(),
          criteria: z.array(criteriaEntrySchema()),
          valueColumn: z.string(),
        }),
      ),
    ),
    waitForCohortWindow: z.optional(z.boolean()),
    denominatorCriteria: z.optional(z.array(criteriaEntrySchema())),
    denominatorCustomRollupEnd: z.optional(z.number()),
    denominatorCustomRollupStart: z.optional(z.number()),
    denominatorMetricSourceName: z.optional(z.string()),
    denominatorRollupTimeWindow: z.optional(z.string()),
    denominatorValueColumn: z.optional(z.string()),
    funnelCalculationWindow: z.optional(z.number()),
    funnelEvents: z.optional(
      z.array(
        z.strictObject({
          criteria: z.array(criteriaEntrySchema()),
          metricSourceName: z.string(),
          name: z.string(),
          sessionIdentifierField: z.string(),
        }),
      ),
    ),
    metricDimensionColumns: z.optional(z.array(z.string())),
    metricDimensionLimits: z.optional(z.array(z.strictObject({ name: z.string(), limit: z.number() }))),
    metricBakeDays: z.optional(z.number()),
    valueColumn: z.optional(z.string()),
    valueThreshold: z.optional(z.number()),
    allowNullRatioDenominator: z.optional(z.boolean()),
    funnelStrictOrdering: z.optional(z.boolean()),
    funnelUseExposureAsFirstEvent: z.optional(z.boolean()),
    funnelTimeToConvert: z.optional(z.boolean()),
    funnelTimestampAllowanceMs: z.optional(z.number()),
    winsorizationHigh: z.optional(z.number()),
    winsorizationLow: z.optional(z.number()),
    winsorizationHighDenominator: z.optional(z.number()),
    winsorizationLowDenominator: z.optional(z.number()),
    cupedAttributionWindow: z.optional(z.number()),
    rollupTimeWindow: z.optional(z.string()),
    customRollUpStart: z.optional(z.number()),
    customRollUpEnd: z.optional(z.number()),
    onlyIncludeUsersWithConversionEvent: z.optional(z.boolean()),
    denominatorCustomRollupMeasureInMinutes: z.optional(z.boolean()),
    customRollupMeasureInMinutes: z.optional(z.boolean()),
    percentile: z.optional(z.number()),
    useLogTransform: z.optional(z.boolean()),
    useSecondaryRetentionEvent: z.optional(z.boolean()),
    retentionEnd: z.optional(z.number()),
    retentionLength: z.optional(z.number()),
    logTransformBase: z.optional(z.number()),
    cap: z.optional(z.number()),
    surrogateMetricMSE: z.optional(z.number()),
  }),
);
export type WarehouseNative = z.input<ReturnType<typeof warehouseNativeSchema>>;

/** Metric update body: all fields optional, nothing beyond the spec's list. */
export const metricUpdateSchema = /* @__PURE__ */ once(() =>
  z.strictObject({
    name: z.optional(z.string()),
    description: z.optional(z.string()),
    tags: z.optional(z.array(z.string())),
    isVerified: z.optional(z.boolean()),
    isReadOnly: z.optional(z.boolean()),
    isPermanent: z.optional(z.boolean()),
    warehouseNative: z.optional(warehouseNativeSchema()),
    unitTypes: z.optional(z.array(z.string())),
    team: z.optional(z.nullable(z.string())),
    teamID: z.optional(z.nullable(z.string())),
    directionality: z.optional(z.enum(['increase', 'decrease'])),
    dryRun: z.optional(z.boolean()),
    owner: z.optional(z.strictObject({ email: z.string(), ownerID: z.string() })),
  }),
);
export type MetricUpdate = z.input<ReturnType<typeof metricUpdateSchema>>;
