/** Metrics (spec 2.8, 4.5), the `warehouseNative` update object and the update body. */
import { z } from 'zod';
import { OwnerSchema } from './common.js';

export const METRIC_TYPES = ['sum', 'event_count', 'event_dau', 'event_user', 'event_count_custom', 'funnel'];

export const MetricSchema = z.looseObject({
  /** `<metric_name>::<metric_type>` */
  id: z.string(),
  name: z.string().optional(),
  type: z.string().optional(),
  directionality: z.string().optional(),
  description: z.string().optional(),
  isPermanent: z.boolean().optional(),
  isReadOnly: z.boolean().optional(),
  isHidden: z.boolean().optional(),
  isVerified: z.boolean().optional(),
  tags: z.array(z.string()).optional(),
  creatorName: z.string().optional(),
  creatorEmail: z.string().nullish(),
  createdTime: z.number().optional(),
  owner: OwnerSchema.optional(),
  lineage: z.looseObject({ events: z.array(z.string()), metrics: z.array(z.string()) }).optional(),
  team: z.string().nullish(),
  unitTypes: z.array(z.string()).optional(),
  metricEvents: z
    .array(
      z.looseObject({
        name: z.string(),
        type: z.string().optional(),
        criteria: z.array(z.unknown()).optional(),
      }),
    )
    .optional(),
  funnelCountDistinct: z.string().optional(),
  funnelEventList: z.array(z.looseObject({ name: z.string(), type: z.string().optional() })).optional(),
});
export type Metric = z.infer<typeof MetricSchema>;

/** `{column, values, nullVacuousOverride}`: the spec lists all three as the entry's shape. */
export const CriteriaEntrySchema = z.strictObject({
  column: z.string(),
  values: z.array(z.string()),
  nullVacuousOverride: z.boolean(),
});

/** Every field of the spec's warehouseNative object; all optional, nothing else accepted. */
export const WarehouseNativeSchema = z.strictObject({
  metricSourceName: z.string().optional(),
  criteria: z.array(CriteriaEntrySchema).optional(),
  metricSources: z
    .array(
      z.strictObject({
        metricSourceName: z.string(),
        criteria: z.array(CriteriaEntrySchema),
        valueColumn: z.string(),
      }),
    )
    .optional(),
  waitForCohortWindow: z.boolean().optional(),
  denominatorCriteria: z.array(CriteriaEntrySchema).optional(),
  denominatorCustomRollupEnd: z.number().optional(),
  denominatorCustomRollupStart: z.number().optional(),
  denominatorMetricSourceName: z.string().optional(),
  denominatorRollupTimeWindow: z.string().optional(),
  denominatorValueColumn: z.string().optional(),
  funnelCalculationWindow: z.number().optional(),
  funnelEvents: z
    .array(
      z.strictObject({
        criteria: z.array(CriteriaEntrySchema),
        metricSourceName: z.string(),
        name: z.string(),
        sessionIdentifierField: z.string(),
      }),
    )
    .optional(),
  metricDimensionColumns: z.array(z.string()).optional(),
  metricDimensionLimits: z.array(z.strictObject({ name: z.string(), limit: z.number() })).optional(),
  metricBakeDays: z.number().optional(),
  valueColumn: z.string().optional(),
  valueThreshold: z.number().optional(),
  allowNullRatioDenominator: z.boolean().optional(),
  funnelStrictOrdering: z.boolean().optional(),
  funnelUseExposureAsFirstEvent: z.boolean().optional(),
  funnelTimeToConvert: z.boolean().optional(),
  funnelTimestampAllowanceMs: z.number().optional(),
  winsorizationHigh: z.number().optional(),
  winsorizationLow: z.number().optional(),
  winsorizationHighDenominator: z.number().optional(),
  winsorizationLowDenominator: z.number().optional(),
  cupedAttributionWindow: z.number().optional(),
  rollupTimeWindow: z.string().optional(),
  customRollUpStart: z.number().optional(),
  customRollUpEnd: z.number().optional(),
  onlyIncludeUsersWithConversionEvent: z.boolean().optional(),
  denominatorCustomRollupMeasureInMinutes: z.boolean().optional(),
  customRollupMeasureInMinutes: z.boolean().optional(),
  percentile: z.number().optional(),
  useLogTransform: z.boolean().optional(),
  useSecondaryRetentionEvent: z.boolean().optional(),
  retentionEnd: z.number().optional(),
  retentionLength: z.number().optional(),
  logTransformBase: z.number().optional(),
  cap: z.number().optional(),
  surrogateMetricMSE: z.number().optional(),
});
export type WarehouseNative = z.input<typeof WarehouseNativeSchema>;

/** Metric update body: all fields optional, nothing beyond the spec's list. */
export const MetricUpdateSchema = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  isVerified: z.boolean().optional(),
  isReadOnly: z.boolean().optional(),
  isPermanent: z.boolean().optional(),
  warehouseNative: WarehouseNativeSchema.optional(),
  unitTypes: z.array(z.string()).optional(),
  team: z.string().nullable().optional(),
  teamID: z.string().nullable().optional(),
  directionality: z.enum(['increase', 'decrease']).optional(),
  dryRun: z.boolean().optional(),
  owner: z.strictObject({ email: z.string(), ownerID: z.string() }).optional(),
});
export type MetricUpdate = z.input<typeof MetricUpdateSchema>;
