/** Experiments (spec 2.9): the response of disable groups, with every nested object. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';
import { ownerSchema } from './common.js';

/** The optional (or null: spec 2.13) fields most of these objects are made of, built once and shared by them. */
const optional = /* @__PURE__ */ once(() => ({
  str: z.nullish(z.string()),
  num: z.nullish(z.number()),
  bool: z.nullish(z.boolean()),
  strings: z.nullish(z.array(z.string())),
}));

export const experimentGroupSchema = /* @__PURE__ */ once(() => {
  const { num, str, bool } = optional();
  return z.looseObject({
    name: z.string(),
    size: num,
    parameterValues: z.nullish(z.record(z.string(), z.unknown())),
    id: str,
    disabled: bool,
    description: str,
    foreignGroupID: str,
  });
});

export const experimentMetricSchema = /* @__PURE__ */ once(() => {
  const { str, num } = optional();
  return z.looseObject({ name: z.string(), type: str, hypothesizedValue: num });
});

export const healthCheckMetadataSchema = /* @__PURE__ */ once(() => {
  const { str, num, strings } = optional();
  return z.looseObject({
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
    deduplication_rates: z.nullish(z.array(z.looseObject({ group_id: str, rate: num, group_name: str }))),
    missingMetrics: strings,
    metrics: z.nullish(z.array(z.looseObject({ metric_name: str, earliest_date: str, latest_date: str }))),
  });
});

export const healthCheckSchema = /* @__PURE__ */ once(() => {
  const { str } = optional();
  return z.looseObject({
    name: z.string(),
    description: str,
    metadata: z.nullish(healthCheckMetadataSchema()),
  });
});

export const experimentSchema = /* @__PURE__ */ once(() => {
  const { str, num, bool, strings } = optional();
  return z.looseObject({
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
    scheduledReloadDays: z.nullish(z.array(z.number())),
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
    groups: z.nullish(z.array(experimentGroupSchema())),
    primaryMetrics: z.nullish(z.array(experimentMetricSchema())),
    secondaryMetrics: z.nullish(z.array(experimentMetricSchema())),
    otherMetrics: z.nullish(z.array(experimentMetricSchema())),
    reviewSettings: z.nullish(
      z.looseObject({
        requiredReview: bool,
        allowedReviewers: z.nullish(z.array(z.looseObject({ id: str, name: str, email: str }))),
      }),
    ),
    activeReview: z.nullish(z.looseObject({ reviewID: str, reviewStatus: str, description: str })),
    links: z.nullish(z.array(z.looseObject({ url: str, title: str }))),
    manualQualityScores: z.nullish(
      z.array(z.looseObject({ criteriaDescription: str, score: num, weight: num })),
    ),
    assignmentSourceFilters: z.nullish(z.array(z.looseObject({ column: str, values: strings }))),
    preComputedUserDimensions: z.nullish(z.array(z.looseObject({ name: z.string(), propertySource: str }))),
    cureCovariates: z.nullish(z.array(z.looseObject({ name: z.string(), type: str }))),
    stratifiedSampling: z.nullish(
      z.looseObject({
        metric: z.nullish(z.looseObject({ name: str, startDate: str, endDate: str })),
        entityPropertySource: z.nullish(z.looseObject({ propertySourceName: str, column: str })),
        csv: z.nullish(z.looseObject({ original: str, identifier: str })),
      }),
    ),
    healthChecks: z.nullish(z.array(healthCheckSchema())),
    owner: z.nullish(ownerSchema()),
    summarySections: z.nullish(z.array(z.looseObject({ name: z.string(), content: str }))),
  });
});
export type Experiment = z.infer<ReturnType<typeof experimentSchema>>;

export const disableGroupsSchema = /* @__PURE__ */ once(() =>
  z.strictObject({ group_names: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)) }),
);
export type DisableGroups = z.input<ReturnType<typeof disableGroupsSchema>>;
