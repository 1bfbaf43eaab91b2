/**
 * The sandbox's own, minimal zod schemas of the request bodies (spec part 4). Independent of
 * the client's schemas on purpose: disagreements show up in the contract tests.
 */
import { z } from 'zod';
import { PERMISSION_KEYS } from './seed.js';

export const RoleUpdateBody = z.object({
  permissions: z.strictObject(Object.fromEntries(PERMISSION_KEYS.map((k) => [k, z.boolean().optional()]))),
});

export const ArchiveBody = z.object({ forceArchive: z.boolean(), archiveReason: z.string() });

const nonEmpty = z.string().min(1, 'must not be empty');

/**
 * An e-mail address as the spec gives it (2.11, 4.5: "e-mail addresses", `email: string`): text
 * with an `@` and no spaces. Not `z.email()`: it refuses real addresses (a punycode top-level
 * domain such as `xn--p1ai`, `&` in the local part), a rule the spec does not state.
 */
const emailAddress = z.string().regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address');

/** Spec 4.4: name, sql, timestampColumn and idTypeMapping required; "the rest are optional" (tableName too). */
export const QualifyingEventBody = z.object({
  name: nonEmpty,
  sql: nonEmpty,
  timestampColumn: nonEmpty,
  // Required (spec 4.4), of no stated length: an empty list is a list.
  idTypeMapping: z.array(z.object({ serviceUnitID: nonEmpty, column: nonEmpty })),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  timestampAsDay: z.boolean().optional(),
  sourceType: z.enum(['table', 'query']).optional(),
  tableName: z.string().optional(),
  datePartitionColumn: z.string().optional(),
  customFieldMapping: z.array(z.object({ key: z.string(), formula: z.string() })).optional(),
  isReadOnly: z.boolean().optional(),
  isVerified: z.boolean().optional(),
  owner: z.record(z.string(), z.unknown()).optional(),
  team: z.string().nullable().optional(),
  teamID: z.string().nullable().optional(),
  dryRun: z.boolean().optional(),
});

export const DisableGroupsBody = z.object({
  group_names: z.array(nonEmpty).min(1, 'needs at least one group name'),
});

const criteria = z.array(
  z.object({ column: z.string(), values: z.array(z.string()), nullVacuousOverride: z.boolean() }),
);
const num = z.number().optional();
const bool = z.boolean().optional();
const str = z.string().optional();

export const WarehouseNative = z.looseObject({
  metricSourceName: str,
  criteria: criteria.optional(),
  metricSources: z
    .array(z.object({ metricSourceName: z.string(), criteria: criteria, valueColumn: z.string() }))
    .optional(),
  waitForCohortWindow: bool,
  denominatorCriteria: criteria.optional(),
  denominatorCustomRollupEnd: num,
  denominatorCustomRollupStart: num,
  denominatorMetricSourceName: str,
  denominatorRollupTimeWindow: str,
  denominatorValueColumn: str,
  funnelCalculationWindow: num,
  funnelEvents: z
    .array(
      z.object({
        criteria: criteria,
        metricSourceName: z.string(),
        name: z.string(),
        sessionIdentifierField: z.string(),
      }),
    )
    .optional(),
  metricDimensionColumns: z.array(z.string()).optional(),
  metricDimensionLimits: z.array(z.object({ name: z.string(), limit: z.number() })).optional(),
  metricBakeDays: num,
  valueColumn: str,
  valueThreshold: num,
  allowNullRatioDenominator: bool,
  funnelStrictOrdering: bool,
  funnelUseExposureAsFirstEvent: bool,
  funnelTimeToConvert: bool,
  funnelTimestampAllowanceMs: num,
  winsorizationHigh: num,
  winsorizationLow: num,
  winsorizationHighDenominator: num,
  winsorizationLowDenominator: num,
  cupedAttributionWindow: num,
  rollupTimeWindow: str,
  customRollUpStart: num,
  customRollUpEnd: num,
  onlyIncludeUsersWithConversionEvent: bool,
  denominatorCustomRollupMeasureInMinutes: bool,
  customRollupMeasureInMinutes: bool,
  percentile: num,
  useLogTransform: bool,
  useSecondaryRetentionEvent: bool,
  retentionEnd: num,
  retentionLength: num,
  logTransformBase: num,
  cap: num,
  surrogateMetricMSE: num,
});

export const MetricUpdateBody = z.object({
  name: nonEmpty.optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  isVerified: bool,
  isReadOnly: bool,
  isPermanent: bool,
  warehouseNative: WarehouseNative.optional(),
  unitTypes: z.array(z.string()).optional(),
  team: z.string().nullable().optional(),
  teamID: z.string().nullable().optional(),
  directionality: z.enum(['increase', 'decrease']).optional(),
  dryRun: bool,
  owner: z.object({ email: emailAddress, ownerID: nonEmpty }).optional(),
});

export const ApproveBody = z.object({ phaseID: nonEmpty });

const metricRefs = z.array(z.object({ name: nonEmpty, type: nonEmpty }));

export const TeamBody = z.object({
  name: nonEmpty,
  description: z.string().optional(),
  members: z.array(emailAddress),
  admins: z.array(emailAddress),
  defaultGateMetrics: metricRefs,
  defaultExperimentPrimaryMetrics: metricRefs,
  defaultExperimentSecondaryMetrics: metricRefs,
  defaultHoldoutMetrics: metricRefs,
  defaultTargetApplications: z.array(z.string()),
  changeTeamConfigs: z.enum(['anyone', 'team_only']),
  reviewApproval: z.enum(['anyone', 'team_only', 'admin_only']),
  defaultHoldoutID: z.string().nullable().optional(),
  requireReviews: z.boolean().nullable().optional(),
  requireGateTemplates: z.boolean().nullable().optional(),
  requireExperimentTemplates: z.boolean().nullable().optional(),
  requireDynamicConfigTemplates: z.boolean().nullable().optional(),
});
