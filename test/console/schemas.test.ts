import { describe, expect, it } from 'vitest';
import {
  createTeamSchema,
  dynamicConfigSchema,
  eventRecordSchema,
  experimentSchema,
  metricSchema,
  metricSourceSchema,
  metricUpdateSchema,
  PERMISSION_KEYS,
  paginationSchema,
  roleSchema,
  roleUpdateSchema,
  segmentSchema,
  teamSchema,
  triggerSchema,
  warehouseNativeSchema,
} from '../../src/console/index.js';

const owner = { ownerID: 'u1', ownerType: 'USER', ownerName: 'Ada', ownerEmail: 'ada@example.com' };
const criteria = [{ column: 'country', values: ['DE'], nullVacuousOverride: false }];

/** Every field the spec lists for an experiment (2.9), nested objects included. */
const experiment = {
  ...Object.fromEntries(
    [
      'id',
      'name',
      'idType',
      'description',
      'hypothesis',
      'decisionReason',
      'layerID',
      'targetingGateID',
      'launchedGroupID',
      'controlGroupID',
      'targetApps',
      'team',
      'teamID',
      'secondaryIDType',
      'identityResolutionSource',
      'externalExperimentName',
      'assignmentSourceName',
      'assignmentSourceExperimentName',
      'analysisEndTime',
      'analyticsType',
      'inlineTargetingRulesJSON',
      'creatorID',
      'creatorName',
      'creatorEmail',
      'lastModifierID',
      'lastModifierName',
      'lastModifierEmail',
    ].map((k) => [k, `${k}-value`]),
  ),
  ...Object.fromEntries(
    ['createdTime', 'lastModifiedTime', 'startTime', 'endTime', 'decisionTime'].map((k) => [
      k,
      1_700_000_000_000,
    ]),
  ),
  ...Object.fromEntries(
    ['tags', 'holdoutIDs', 'primaryMetricTags', 'secondaryMetricTags'].map((k) => [k, ['a']]),
  ),
  ...Object.fromEntries(
    [
      'allocation',
      'version',
      'duration',
      'targetExposures',
      'allocationDuration',
      'cohortedAnalysisDuration',
      'fixedAnalysisDuration',
      'scheduledReloadHour',
    ].map((k) => [k, 3]),
  ),
  scheduledReloadDays: [1, 3],
  ...Object.fromEntries(
    [
      'bonferroniCorrection',
      'bonferroniCorrectionPerMetric',
      'benjaminiHochbergPerVariant',
      'benjaminiHochbergPerMetric',
      'benjaminiPrimaryMetricsOnly',
      'sequentialTesting',
      'isAnalysisOnly',
      'cohortedMetricsMatureAfterEnd',
      'cohortWaitUntilEndToInclude',
      'turboMode',
      'isSidecar',
    ].map((k) => [k, true]),
  ),
  groups: [
    {
      name: 'control',
      size: 50,
      parameterValues: { a: 1 },
      id: 'g1',
      disabled: false,
      description: '',
      foreignGroupID: '',
    },
  ],
  primaryMetrics: [{ name: 'purchases', type: 'event_count', hypothesizedValue: 0.02 }],
  secondaryMetrics: [],
  otherMetrics: [],
  reviewSettings: {
    requiredReview: true,
    allowedReviewers: [{ id: 'u1', name: 'Ada', email: 'ada@example.com' }],
  },
  activeReview: { reviewID: 'r1', reviewStatus: 'pending', description: 'd' },
  links: [{ url: 'https://example.com', title: 'doc' }],
  manualQualityScores: [{ criteriaDescription: 'c', score: 4, weight: 1 }],
  assignmentSourceFilters: [{ column: 'country', values: ['DE'] }],
  preComputedUserDimensions: [{ name: 'tier', propertySource: 'crm' }],
  cureCovariates: [{ name: 'spend', type: 'numeric' }],
  stratifiedSampling: {
    metric: { name: 'm', startDate: '2026-01-01', endDate: '2026-02-01' },
    entityPropertySource: { propertySourceName: 'crm', column: 'tier' },
    csv: { original: 'a.csv', identifier: 'user_id' },
  },
  healthChecks: [
    {
      name: 'srm',
      description: 'sample ratio',
      metadata: {
        type: 'srm',
        primary_id_type: 'userID',
        secondary_id_type: '',
        assignmentSourceID: 'a',
        assignmentSourceName: 'b',
        foreignExperimentID: 'c',
        lastUpdatedDs: '2026-01-01',
        lastPulseLoadTime: 1,
        crossoverPercent: 0.1,
        deduplication_rate: 0.2,
        deduplication_rates: [{ group_id: 'g1', rate: 0.1, group_name: 'control' }],
        missingMetrics: ['x'],
        metrics: [
          { metric_name: 'm', earliest_date: '2026-01-01T00:00:00Z', latest_date: '2026-01-02T00:00:00Z' },
        ],
      },
    },
  ],
  owner,
  summarySections: [{ name: 's', content: 'c' }],
};

describe('response schemas', () => {
  it('parse an experiment carrying every field of the spec', () => {
    const parsed = experimentSchema().parse(experiment);
    expect(parsed).toEqual(experiment);
  });

  it('keep unknown fields, at the top and nested', () => {
    const parsed = experimentSchema().parse({
      ...experiment,
      futureField: { x: 1 },
      groups: [{ name: 'control', newGroupFlag: true }],
    });
    expect(parsed.futureField).toEqual({ x: 1 });
    expect(parsed.groups?.[0]?.newGroupFlag).toBe(true);
  });

  it('reject a wrongly typed field, keeping the path', () => {
    const result = experimentSchema().safeParse({
      ...experiment,
      groups: [{ name: 'control', disabled: 'no' }],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['groups', 0, 'disabled']);
  });

  it('parse a dynamic config with rules, conditions, rollouts and variants', () => {
    const config = dynamicConfigSchema().parse({
      id: 'cfg',
      name: 'cfg',
      isEnabled: true,
      version: 3,
      owner,
      rules: [
        {
          id: 'r1',
          baseID: 'b1',
          name: 'employees',
          passPercentage: 50,
          environments: ['production'],
          returnValue: { on: true },
          returnValueJson5: '{on:true}',
          conditions: [
            { targetValue: ['@example.com'], operator: 'str_contains_any', field: 'email', customID: '' },
          ],
          completedAutomatedRollouts: [{ time: 1, passPercent: 10 }],
          pendingAutomatedRollouts: [{ time: 2, passPercent: 50 }],
          variants: [{ name: 'on', passPercentage: 50, id: 'v1', returnValue: {}, returnValueJson5: '{}' }],
        },
      ],
    });
    expect(config.rules?.[0]?.variants?.[0]?.name).toBe('on');
  });

  it('narrow a segment on its type', () => {
    const ruleBased = segmentSchema().parse({
      id: 's',
      type: 'rule_based',
      rules: {
        name: 'r',
        passPercentage: 100,
        conditions: [
          { type: 'country', operator: 'any', targetValue: ['DE'], field: 'country', customID: '' },
        ],
        returnValue: {},
      },
    });
    expect(ruleBased.type === 'rule_based' && ruleBased.rules.conditions?.[0]?.field).toBe('country');
    expect(segmentSchema().safeParse({ id: 's', type: 'rule_based' }).success).toBe(false);
    expect(segmentSchema().parse({ id: 's', type: 'id_list', count: 3 }).type).toBe('id_list');
  });

  it('keep whatever boolean permissions a role response carries', () => {
    const role = roleSchema().parse({
      name: 'r',
      permissions: { create_configs: true, brand_new_permission: false },
    });
    expect(role.permissions?.brand_new_permission).toBe(false);
  });

  it('parse metric sources, metrics, triggers, teams, events and pagination', () => {
    expect(
      metricSourceSchema().parse({
        name: 'orders',
        sql: 'select 1',
        timestampColumn: 'ts',
        idTypeMapping: [{ serviceUnitID: 'userID', column: 'user_id' }],
        sourceType: 'table',
        tableName: 't',
        customFieldMapping: [{ key: 'k', formula: 'f' }],
        team: null,
        teamID: null,
      }).name,
    ).toBe('orders');
    expect(
      metricSchema().parse({
        id: 'revenue::sum',
        creatorEmail: null,
        team: null,
        owner: { name: 'Ada' },
        lineage: { events: ['purchase'], metrics: [] },
        metricEvents: [{ name: 'purchase', type: 'sum', criteria: [{ anything: 1 }] }],
        funnelEventList: [{ name: 'a', type: 'b' }],
      }).id,
    ).toBe('revenue::sum');
    expect(
      triggerSchema().parse({
        id: 't',
        currentPhaseID: 'ph_2',
        actions: [{ timeMs: 1, phaseID: 'ph_1', actorName: 'a', actorID: 'b' }],
      }).actions,
    ).toHaveLength(1);
    expect(
      teamSchema().parse({
        name: 'T',
        members: [{ email: 'a@example.com', firstName: 'A', lastName: 'B', role: 'admin' }],
        admins: ['a@example.com'],
      }).members?.[0]?.role,
    ).toBe('admin');
    expect(
      eventRecordSchema().parse({ timestamp: '1700000000000', name: 'purchase', metadata: { config: 'c' } })
        .name,
    ).toBe('purchase');
    // Client SDKs write events: a number is read as its text, not a reason to refuse the page.
    expect(
      eventRecordSchema().parse({ timestamp: 1700000000000, name: 'purchase', value: 12.5 }),
    ).toMatchObject({ timestamp: '1700000000000', value: '12.5' });
    expect(
      paginationSchema().parse({
        itemsPerPage: 10,
        pageNumber: 1,
        totalItems: 0,
        nextPage: null,
        previousPage: null,
        all: '',
      }).nextPage,
    ).toBeNull();
  });
});

describe('request schemas', () => {
  it('accept exactly the 29 permission keys in a role update', () => {
    expect(PERMISSION_KEYS).toHaveLength(29);
    expect(new Set(PERMISSION_KEYS).size).toBe(29);
    expect(roleUpdateSchema().safeParse({ permissions: { manual_whn_reload: true } }).success).toBe(true);
    expect(roleUpdateSchema().safeParse({ permissions: { launch_to_production: 1 } }).success).toBe(false);
    expect(roleUpdateSchema().safeParse({ permissions: { admin: true } }).success).toBe(false);
  });

  it('accept every warehouseNative field of the spec and nothing else', () => {
    const full = {
      metricSourceName: 's',
      criteria,
      metricSources: [{ metricSourceName: 's', criteria, valueColumn: 'v' }],
      waitForCohortWindow: true,
      denominatorCriteria: criteria,
      denominatorCustomRollupEnd: 1,
      denominatorCustomRollupStart: 0,
      denominatorMetricSourceName: 'd',
      denominatorRollupTimeWindow: 'w',
      denominatorValueColumn: 'v',
      funnelCalculationWindow: 7,
      funnelEvents: [{ criteria, metricSourceName: 's', name: 'n', sessionIdentifierField: 'sid' }],
      metricDimensionColumns: ['c'],
      metricDimensionLimits: [{ name: 'c', limit: 5 }],
      metricBakeDays: 1,
      valueColumn: 'v',
      valueThreshold: 1,
      allowNullRatioDenominator: true,
      funnelStrictOrdering: true,
      funnelUseExposureAsFirstEvent: false,
      funnelTimeToConvert: true,
      funnelTimestampAllowanceMs: 100,
      winsorizationHigh: 0.99,
      winsorizationLow: 0.01,
      winsorizationHighDenominator: 0.99,
      winsorizationLowDenominator: 0.01,
      cupedAttributionWindow: 7,
      rollupTimeWindow: 'custom',
      customRollUpStart: 0,
      customRollUpEnd: 7,
      onlyIncludeUsersWithConversionEvent: true,
      denominatorCustomRollupMeasureInMinutes: false,
      customRollupMeasureInMinutes: false,
      percentile: 0.5,
      useLogTransform: true,
      useSecondaryRetentionEvent: false,
      retentionEnd: 7,
      retentionLength: 7,
      logTransformBase: 10,
      cap: 100,
      surrogateMetricMSE: 0.1,
    };
    expect(warehouseNativeSchema().parse(full)).toEqual(full);
    expect(warehouseNativeSchema().safeParse({ ...full, typo: 1 }).success).toBe(false);
    expect(
      metricUpdateSchema().safeParse({ warehouseNative: full, directionality: 'decrease' }).success,
    ).toBe(true);
    expect(metricUpdateSchema().safeParse({ directionality: 'sideways' }).success).toBe(false);
  });

  it('require the team fields the spec marks required', () => {
    const result = createTeamSchema().safeParse({ name: 'T' });
    expect(result.success).toBe(false);
    const paths = result.error?.issues.map((i) => i.path[0]);
    expect(paths).toEqual(
      expect.arrayContaining([
        'members',
        'admins',
        'defaultGateMetrics',
        'defaultExperimentPrimaryMetrics',
        'defaultExperimentSecondaryMetrics',
        'defaultHoldoutMetrics',
        'defaultTargetApplications',
        'changeTeamConfigs',
        'reviewApproval',
      ]),
    );
  });
});
