/** Experiments (spec 2.9): the response of disable groups, with every nested object. */
import { z } from 'zod';
import { OwnerSchema } from './common.js';

const str = z.string().optional();
const num = z.number().optional();
const bool = z.boolean().optional();
const strings = z.array(z.string()).optional();

export const ExperimentGroupSchema = z.looseObject({
  name: z.string(),
  size: num,
  parameterValues: z.record(z.string(), z.unknown()).optional(),
  id: str,
  disabled: bool,
  description: str,
  foreignGroupID: str,
});

export const ExperimentMetricSchema = z.looseObject({ name: z.string(), type: str, hypothesizedValue: num });

export const HealthCheckMetadataSchema = z.looseObject({
  type: str,
  primary_id_type: str,
  secondary_id_type: str,
  assignmentSourceID: str,
  assignmentSourceName: str,
  foreignExperimentID: str,
  lastUpdatedDs: str,
  lastPulseLoadTime: num,
  crossoverPercent: num,
  deduplication_rate: num,
  deduplication_rates: z
    .array(z.looseObject({ group_id: z.string(), rate: z.number(), group_name: z.string() }))
    .optional(),
  missingMetrics: strings,
  metrics: z
    .array(z.looseObject({ metric_name: z.string(), earliest_date: z.string(), latest_date: z.string() }))
    .optional(),
});

export const HealthCheckSchema = z.looseObject({
  name: z.string(),
  description: str,
  metadata: HealthCheckMetadataSchema.optional(),
});

export const ExperimentSchema = z.looseObject({
  id: z.string(),
  name: str,
  idType: str,
  description: str,
  hypothesis: str,
  decisionReason: str,
  layerID: str,
  targetingGateID: str,
  launchedGroupID: str,
  controlGroupID: str,
  targetApps: str,
  team: str,
  teamID: str,
  secondaryIDType: str,
  identityResolutionSource: str,
  externalExperimentName: str,
  assignmentSourceName: str,
  assignmentSourceExperimentName: str,
  analysisEndTime: str,
  analyticsType: str,
  inlineTargetingRulesJSON: str,
  creatorID: str,
  creatorName: str,
  creatorEmail: str,
  lastModifierID: str,
  lastModifierName: str,
  lastModifierEmail: str,
  createdTime: num,
  lastModifiedTime: num,
  startTime: num,
  endTime: num,
  decisionTime: num,
  tags: strings,
  holdoutIDs: strings,
  primaryMetricTags: strings,
  secondaryMetricTags: strings,
  allocation: num,
  version: num,
  duration: num,
  targetExposures: num,
  allocationDuration: num,
  cohortedAnalysisDuration: num,
  fixedAnalysisDuration: num,
  scheduledReloadHour: num,
  scheduledReloadDays: z.array(z.number()).optional(),
  bonferroniCorrection: bool,
  bonferroniCorrectionPerMetric: bool,
  benjaminiHochbergPerVariant: bool,
  benjaminiHochbergPerMetric: bool,
  benjaminiPrimaryMetricsOnly: bool,
  sequentialTesting: bool,
  isAnalysisOnly: bool,
  cohortedMetricsMatureAfterEnd: bool,
  cohortWaitUntilEndToInclude: bool,
  turboMode: bool,
  isSidecar: bool,
  groups: z.array(ExperimentGroupSchema).optional(),
  primaryMetrics: z.array(ExperimentMetricSchema).optional(),
  secondaryMetrics: z.array(ExperimentMetricSchema).optional(),
  otherMetrics: z.array(ExperimentMetricSchema).optional(),
  reviewSettings: z
    .looseObject({
      requiredReview: bool,
      allowedReviewers: z.array(z.looseObject({ id: str, name: str, email: str })).optional(),
    })
    .optional(),
  activeReview: z.looseObject({ reviewID: str, reviewStatus: str, description: str }).nullish(),
  links: z.array(z.looseObject({ url: z.string(), title: str })).optional(),
  manualQualityScores: z
    .array(z.looseObject({ criteriaDescription: str, score: num, weight: num }))
    .optional(),
  assignmentSourceFilters: z
    .array(z.looseObject({ column: z.string(), values: z.array(z.string()) }))
    .optional(),
  preComputedUserDimensions: z.array(z.looseObject({ name: z.string(), propertySource: str })).optional(),
  cureCovariates: z.array(z.looseObject({ name: z.string(), type: str })).optional(),
  stratifiedSampling: z
    .looseObject({
      metric: z.looseObject({ name: str, startDate: str, endDate: str }).optional(),
      entityPropertySource: z.looseObject({ propertySourceName: str, column: str }).optional(),
      csv: z.looseObject({ original: str, identifier: str }).optional(),
    })
    .nullish(),
  healthChecks: z.array(HealthCheckSchema).optional(),
  owner: OwnerSchema.optional(),
  summarySections: z.array(z.looseObject({ name: z.string(), content: str })).optional(),
});
export type Experiment = z.infer<typeof ExperimentSchema>;

export const DisableGroupsSchema = z.strictObject({ group_names: z.array(z.string().min(1)).min(1) });
export type DisableGroups = z.input<typeof DisableGroupsSchema>;
