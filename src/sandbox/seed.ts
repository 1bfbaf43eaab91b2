/**
 * The seeded world of the sandbox: a deterministic function of (seed, now, eventCount).
 * Everything is drawn from one seeded PRNG in a fixed order, so the same inputs always give
 * the same state (tested), and `reset()` can rebuild it exactly.
 */
import { createEventStore, type EventStore, PRODUCT_EVENTS } from './events.js';
import { createRng, type Rng } from './prng.js';
import type {
  DynamicConfig,
  EventListing,
  EventOrder,
  Experiment,
  ExperimentGroup,
  Metric,
  MetricSource,
  Owner,
  Phase,
  Role,
  Segment,
  Team,
  TriggerState,
} from './types.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/**
 * The 29 permission keys an update accepts (spec 2.3). The sandbox's own transcription, not
 * the client's (src/console/schemas/roles.ts): it is an independent reading of the spec, and
 * test/console/contract.test.ts checks that the two agree.
 */
export const PERMISSION_KEYS = [
  'invitation_access',
  'create_configs',
  'edit_or_delete_configs',
  'launch_to_production',
  'launch_or_disable_configs',
  'start_experiments',
  'create_or_edit_templates',
  'create_or_edit_dashboards',
  'create_teams',
  'edit_dynamic_config_schemas',
  'create_release_pipelines',
  'approve_required_review_release_pipeline_phase',
  'self_approve_review',
  'approve_reviews',
  'bypass_reviews_for_overrides',
  'bypass_precommit_webhook',
  'metric_management',
  'event_dimensions_access',
  'verify_metrics',
  'use_metrics_explorer',
  'local_metrics',
  'manage_alerts',
  'integrations_edit_access',
  'source_connection_and_creation',
  'whn_connection',
  'data_warehouse_ingestion_and_exports_edit_access',
  'edit_and_tag_configs_with_core_tag',
  'reset_experiments',
  'manual_whn_reload',
] as const;

/** The four keys the spec's role responses leave out: stored, never returned. */
export const HIDDEN_PERMISSION_KEYS: ReadonlySet<string> = new Set([
  'bypass_precommit_webhook',
  'event_dimensions_access',
  'whn_connection',
  'manual_whn_reload',
]);

export const PHASES: readonly Omit<Phase, 'durationMs'>[] = [
  { id: 'ph_1', name: 'canary', requiresReview: true },
  { id: 'ph_2', name: 'ramp_25', requiresReview: false },
  { id: 'ph_3', name: 'ramp_50', requiresReview: false },
  { id: 'ph_4', name: 'full', requiresReview: true },
];
export const COMPLETED_STATUS = 'completed';
export const IN_PROGRESS_STATUS = 'in_progress';

const PEOPLE = [
  { id: 'usr_1', name: 'Ada Lovelace', email: 'ada@example.com' },
  { id: 'usr_2', name: 'Grace Hopper', email: 'grace@example.com' },
  { id: 'usr_3', name: 'Alan Turing', email: 'alan@example.com' },
  { id: 'usr_4', name: 'Katherine Johnson', email: 'katherine@example.com' },
  { id: 'usr_5', name: 'Edsger Dijkstra', email: 'edsger@example.com' },
  { id: 'usr_6', name: 'Barbara Liskov', email: 'barbara@example.com' },
] as const;

const TEAMS = [
  { id: 'team_checkout', name: 'Checkout' },
  { id: 'team_growth', name: 'Growth' },
  { id: 'team_platform', name: 'Platform' },
  { id: 'team_search', name: 'Search' },
] as const;

/** Configs exposed only long ago (the stale-config sweeper's target). */
export const QUIET_CONFIGS = ['new_checkout_copy'] as const;
export const QUIET_SINCE_DAYS = 60;

const CONFIG_IDS = [
  'new_checkout_copy',
  'checkout_banner',
  'checkout_button_color',
  'search_ranking_v2',
  'homepage_hero',
  'pricing_table_layout',
  'onboarding_flow',
  'recommendation_widget',
  'free_shipping_threshold',
  'promo_banner_text',
  'mobile_nav_layout',
  'dark_mode_default',
  'push_notification_copy',
  'cart_upsell',
  'login_methods',
  'payment_providers',
  'support_chat_widget',
  'referral_bonus',
  'product_page_gallery',
  'email_digest_frequency',
  'feature_tour',
  'max_upload_size_mb',
  'api_timeout_ms',
] as const;

const SEGMENT_IDS = [
  'beta_testers',
  'employees',
  'internal_qa',
  'vip_customers',
  'churn_risk',
  'new_users_7d',
  'power_users',
  'eu_users',
  'us_users',
  'ios_users',
  'android_users',
  'web_users',
  'enterprise_accounts',
  'free_tier',
  'trial_users',
  'high_value_carts',
  'support_escalations',
  'design_partners',
  'dogfood_cohort',
  'holdout_global',
  'loyalty_gold',
  'loyalty_silver',
  'returning_buyers',
  'first_purchase',
  'newsletter_subscribers',
  'app_v5_plus',
  'slow_networks',
  'screen_reader_users',
  'partner_apis',
  'load_test_accounts',
  'de_market',
  'students',
  'blocked_regions',
  'recent_signups',
] as const;

const METRIC_SOURCE_NAMES = [
  'purchases',
  'page_views',
  'sessions',
  'signups',
  'searches',
  'cart_events',
  'checkout_events',
  'refunds',
  'subscriptions',
  'app_opens',
  'support_tickets',
  'email_clicks',
  'push_opens',
  'video_plays',
  'reviews',
  'wishlist_adds',
  'shipments',
  'returns',
  'loyalty_points',
  'referrals',
  'errors_client',
  'latency_server',
  'feature_usage',
  'nps_responses',
  'ad_impressions',
] as const;

const EXPERIMENTS: ReadonlyArray<{ id: string; groups: string[]; status: string }> = [
  { id: 'checkout_redesign', groups: ['control', 'test'], status: 'active' },
  { id: 'search_ranking_test', groups: ['control', 'test', 'test_b'], status: 'active' },
  { id: 'free_shipping_banner', groups: ['control', 'test'], status: 'active' },
  { id: 'onboarding_checklist', groups: ['control', 'test', 'test_b', 'test_c'], status: 'active' },
  { id: 'price_anchor', groups: ['control', 'test'], status: 'decision_made' },
  { id: 'push_timing', groups: ['control', 'morning', 'evening'], status: 'active' },
  { id: 'recs_carousel', groups: ['control', 'test'], status: 'setup' },
  { id: 'one_click_pay', groups: ['control', 'test'], status: 'active' },
];

const ROLES: ReadonlyArray<{ id: string; name: string; grants: (key: string) => boolean }> = [
  { id: 'admin', name: 'Admin', grants: () => true },
  {
    id: 'member',
    name: 'Member',
    grants: (k) => !/approve|bypass|invitation|create_teams|reset|whn|integrations|ingestion/.test(k),
  },
  { id: 'read_only', name: 'Read Only', grants: (k) => k === 'use_metrics_explorer' },
  {
    id: 'release_manager',
    name: 'Release Manager',
    grants: (k) => /release|approve|launch|review|configs/.test(k) && !k.startsWith('bypass'),
  },
  {
    id: 'data_scientist',
    name: 'Data Scientist',
    grants: (k) => /metric|experiment|dashboard|dimension|source|whn|warehouse|alerts/.test(k),
  },
  {
    id: 'experiment_owner',
    name: 'Experiment Owner',
    grants: (k) => /experiment|templates|dashboards/.test(k),
  },
];

export type SandboxState = {
  roles: Map<string, Role>;
  configs: Map<string, DynamicConfig>;
  segments: Map<string, Segment>;
  /** Keyed by name (the primary identifier), in insertion order. */
  metricSources: Map<string, MetricSource>;
  metrics: Map<string, Metric>;
  experiments: Map<string, Experiment>;
  triggers: Map<string, TriggerState>;
  /** Keyed by team name. */
  teams: Map<string, Team>;
  events: EventStore;
};

export type SeedOptions = {
  seed: number;
  now: number;
  eventCount: number;
  eventOrder: EventOrder;
  eventListing?: EventListing;
};

export function owner(rng: Rng): Owner {
  const p = rng.pick(PEOPLE);
  return { ownerID: p.id, ownerType: 'USER', ownerName: p.name, ownerEmail: p.email };
}

/** trg_1..4 wait on canary, 5..7 on ramp_25, 8..9 on ramp_50, 10..11 on full, 12 is complete. */
function seedTriggers(
  rng: Rng,
  now: number,
  ago: (min: number, max: number) => number,
): Map<string, TriggerState> {
  const triggers = new Map<string, TriggerState>();
  // trg_1..4 wait on canary, 5..7 on ramp_25, 8..9 on ramp_50, 10..11 on full, 12 is complete.
  const phaseIndexOf = [0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4];
  for (let i = 1; i <= 12; i++) {
    const p = rng.pick(PEOPLE);
    const created = ago(3, 20);
    const phases: Phase[] = PHASES.map((ph) => ({ ...ph, durationMs: rng.int(1, 24) * HOUR }));
    const current = phaseIndexOf[i - 1] as number;
    const actions = phases.slice(0, current).map((ph, k) => {
      const approver = rng.pick(PEOPLE);
      return {
        timeMs: created + (k + 1) * 6 * HOUR,
        phaseID: ph.id,
        actorName: approver.name,
        actorID: approver.id,
      };
    });
    const phase = phases[current];
    triggers.set(`trg_${i}`, {
      id: `trg_${i}`,
      releasePipelineID: `rp_${((i - 1) % 3) + 1}`,
      creatorID: p.id,
      lastModifierID: p.id,
      lastModifierName: p.name,
      status: phase ? IN_PROGRESS_STATUS : COMPLETED_STATUS,
      currentPhase: phase?.name ?? '',
      currentPhaseID: phase?.id ?? '',
      description: `Roll out ${CONFIG_IDS[i + 1]} through the standard pipeline`,
      gateID: `gate_${CONFIG_IDS[i + 1]}`,
      dynamicConfigID: CONFIG_IDS[i + 1] as string,
      configSnapshotID: `snap_${i}_${rng.int(1000, 9999)}`,
      createdTime: created,
      currentPhaseEndTime: phase ? now + phase.durationMs : 0,
      actions,
      phases,
    });
  }
  return triggers;
}

export function createSeedState(options: SeedOptions): SandboxState {
  const rng = createRng(options.seed);
  const now = options.now;
  const ago = (min: number, max: number) => now - rng.int(min, max) * DAY - rng.int(0, 23) * HOUR;

  const roles = new Map<string, Role>();
  for (const r of ROLES) {
    roles.set(r.id, {
      id: r.id,
      name: r.name,
      permissions: Object.fromEntries(PERMISSION_KEYS.map((k) => [k, r.grants(k)])),
    });
  }

  const triggers = seedTriggers(rng, now, ago);

  const configs = new Map<string, DynamicConfig>();
  for (const id of CONFIG_IDS) {
    const creator = rng.pick(PEOPLE);
    const modifier = rng.pick(PEOPLE);
    const team = rng.pick(TEAMS);
    const created = ago(100, 400);
    const defaultValue = { enabled: false, variant: 'default' };
    const trigger = [...triggers.values()].find((t) => t.dynamicConfigID === id);
    configs.set(id, {
      id,
      name: id,
      description: `Dynamic config ${id.replaceAll('_', ' ')}`,
      idType: 'userID',
      isEnabled: true,
      isTemplate: false,
      version: rng.int(1, 30),
      checksPerHour: id === 'new_checkout_copy' ? 0 : rng.int(500, 90_000),
      createdTime: created,
      lastModifiedTime: id === 'new_checkout_copy' ? ago(75, 89) : ago(1, 60),
      creatorID: creator.id,
      creatorName: creator.name,
      creatorEmail: creator.email,
      lastModifierID: modifier.id,
      lastModifierName: modifier.name,
      lastModifierEmail: modifier.email,
      tags: id.startsWith('checkout') ? ['checkout', 'core'] : [team.name.toLowerCase()],
      targetApps: rng.pick(['web', 'ios', 'android', 'web,ios,android']),
      holdoutIDs: [],
      team: team.name,
      teamID: team.id,
      owner: owner(rng),
      defaultValue,
      defaultValueJson5: JSON.stringify(defaultValue),
      schema: '{"type":"object","properties":{"enabled":{"type":"boolean"},"variant":{"type":"string"}}}',
      schemaJson5: '{type:"object",properties:{enabled:{type:"boolean"},variant:{type:"string"}}}',
      releasePipelineID: trigger?.releasePipelineID ?? '',
      rules: [configRule(rng, id, now)],
      archived: false,
    });
  }

  const segments = new Map<string, Segment>();
  SEGMENT_IDS.forEach((id, i) => {
    const modifier = rng.pick(PEOPLE);
    const ruleBased = i % 2 === 1;
    const segment: Segment = {
      id,
      isEnabled: rng.chance(0.9),
      description: `Users in ${id.replaceAll('_', ' ')}`,
      lastModifierName: modifier.name,
      lastModifierID: modifier.id,
      type: ruleBased ? 'rule_based' : 'id_list',
      count: ruleBased ? 0 : rng.int(3, 25_000),
      tags: rng.chance(0.5) ? ['targeting'] : [],
    };
    if (ruleBased) {
      segment.rules = {
        name: `${id} rule`,
        passPercentage: rng.pick([100, 100, 50, 10]),
        conditions: [
          rng.pick([
            {
              type: 'country',
              operator: 'any',
              targetValue: ['DE', 'FR', 'NL'],
              field: 'country',
              customID: '',
            },
            {
              type: 'email',
              operator: 'str_contains_any',
              targetValue: ['@example.com'],
              field: 'email',
              customID: '',
            },
            {
              type: 'app_version',
              operator: 'version_gte',
              targetValue: '5.0.0',
              field: 'appVersion',
              customID: '',
            },
            { type: 'custom_field', operator: 'gt', targetValue: 100, field: 'lifetimeValue', customID: '' },
            {
              type: 'unit_id',
              operator: 'any',
              targetValue: ['acct_1', 'acct_2'],
              field: 'companyID',
              customID: 'companyID',
            },
          ]),
        ],
        returnValue: {},
      };
    }
    segments.set(id, segment);
  });

  const metricSources = new Map<string, MetricSource>();
  for (const name of METRIC_SOURCE_NAMES) {
    const asTable = rng.chance(0.5);
    const team = rng.pick(TEAMS);
    const source: MetricSource = {
      name,
      description: `Rows of ${name.replaceAll('_', ' ')} from the warehouse`,
      tags: [rng.pick(['core', 'growth', 'finance', 'product'])],
      sql: `SELECT user_id, company_id, event_ts, value FROM analytics.${name}`,
      timestampColumn: 'event_ts',
      timestampAsDay: rng.chance(0.2),
      idTypeMapping: [
        { serviceUnitID: 'userID', column: 'user_id' },
        ...(rng.chance(0.3) ? [{ serviceUnitID: 'companyID', column: 'company_id' }] : []),
      ],
      sourceType: asTable ? 'table' : 'query',
      tableName: asTable ? `analytics.${name}` : '',
      customFieldMapping: rng.chance(0.4) ? [{ key: 'revenue_usd', formula: 'value / 100.0' }] : [],
      isReadOnly: rng.chance(0.2),
      isVerified: rng.chance(0.6),
      owner: owner(rng),
      team: team.name,
      teamID: team.id,
    };
    if (asTable) source.datePartitionColumn = 'ds';
    metricSources.set(name, source);
  }

  const metrics = new Map<string, Metric>();
  const addMetric = (name: string, type: string, events: string[], extra: Partial<Metric> = {}) => {
    const creator = rng.pick(PEOPLE);
    const id = `${name}::${type}`;
    metrics.set(id, {
      id,
      name,
      type,
      directionality: /error|latency|refund|churn/.test(name) ? 'decrease' : 'increase',
      description: `${name.replaceAll('_', ' ')} (${type})`,
      isPermanent: rng.chance(0.2),
      isReadOnly: false,
      isHidden: false,
      isVerified: rng.chance(0.5),
      tags: [rng.pick(['core', 'guardrail', 'product'])],
      creatorName: creator.name,
      creatorEmail: rng.chance(0.8) ? creator.email : null,
      createdTime: ago(30, 300),
      owner: { name: creator.name },
      lineage: { events, metrics: [] },
      team: rng.chance(0.7) ? rng.pick(TEAMS).name : null,
      unitTypes: ['userID'],
      metricEvents: events.map((e) => ({ name: e, type, criteria: [] })),
      ...extra,
    });
  };
  for (const event of PRODUCT_EVENTS) {
    addMetric(`${event}s`, 'event_count', [event]);
    addMetric(`${event}_dau`, 'event_dau', [event]);
    addMetric(`${event}_users`, 'event_user', [event]);
  }
  addMetric('revenue', 'sum', ['purchase']);
  addMetric('cart_value', 'sum', ['add_to_cart']);
  addMetric('large_purchases', 'event_count_custom', ['purchase']);
  addMetric('checkout_funnel', 'funnel', ['page_view', 'add_to_cart', 'checkout_started', 'purchase'], {
    funnelCountDistinct: 'users',
    funnelEventList: ['page_view', 'add_to_cart', 'checkout_started', 'purchase'].map((name) => ({
      name,
      type: 'event',
    })),
  });
  // page_view carries more than one page of metrics, to exercise pagination of listByEvent.
  for (const section of ['home', 'search', 'product', 'cart', 'checkout', 'account', 'help', 'blog']) {
    addMetric(`page_view_${section}`, 'event_count', ['page_view']);
  }
  addMetric('config_exposures', 'event_count', ['config_exposure']);
  addMetric('release_checks', 'event_count', ['release_checks_passed']);

  const experiments = new Map<string, Experiment>();
  for (const e of EXPERIMENTS) experiments.set(e.id, experiment(rng, e, now));

  const teams = new Map<string, Team>();
  for (const t of TEAMS) {
    const members = PEOPLE.filter(() => rng.chance(0.5)).map((p, k) => ({
      email: p.email,
      firstName: p.name.split(' ')[0] as string,
      lastName: p.name.split(' ')[1] as string,
      role: k === 0 ? 'admin' : 'member',
    }));
    teams.set(t.name, {
      name: t.name,
      description: `The ${t.name} team`,
      members,
      admins: members.slice(0, 1).map((m) => m.email),
      defaultGateMetrics: [{ name: 'errors_client', type: 'event_count' }],
      defaultExperimentPrimaryMetrics: [{ name: 'purchases', type: 'event_count' }],
      defaultExperimentSecondaryMetrics: [{ name: 'revenue', type: 'sum' }],
      defaultHoldoutMetrics: [],
      defaultTargetApplications: ['web'],
      changeTeamConfigs: 'team_only',
      reviewApproval: 'team_only',
      defaultHoldoutID: null,
      requireReviews: rng.chance(0.5),
    });
  }

  const triggerList = [...triggers.values()];
  const events = createEventStore({
    count: options.eventCount,
    now,
    rng,
    seed: options.seed,
    order: options.eventOrder,
    ...(options.eventListing ? { listing: options.eventListing } : {}),
    world: {
      exposedConfigs: CONFIG_IDS.filter((id) => !(QUIET_CONFIGS as readonly string[]).includes(id)),
      quietConfigs: QUIET_CONFIGS,
      quietSinceDays: QUIET_SINCE_DAYS,
      triggerIds: triggerList.map((t) => t.id),
      canaryTriggerIds: triggerList.filter((t) => t.currentPhaseID === 'ph_1').map((t) => t.id),
      canaryPhaseId: 'ph_1',
      experimentIds: EXPERIMENTS.map((e) => e.id),
    },
  });

  return { roles, configs, segments, metricSources, metrics, experiments, triggers, teams, events };
}

function configRule(rng: Rng, id: string, now: number) {
  const on = { enabled: true, variant: 'on' };
  const completed = rng.chance(0.5) ? [{ time: now - 10 * DAY, passPercent: 10 }] : [];
  return {
    id: `${id}_rule_1`,
    baseID: `${id}_rule_1`,
    name: 'Employees and beta',
    passPercentage: rng.pick([10, 25, 50, 100]),
    environments: ['production', 'staging'],
    returnValue: on,
    returnValueJson5: JSON.stringify(on),
    conditions: [
      { targetValue: ['beta_testers', 'employees'], operator: 'any', field: 'segment', customID: '' },
    ],
    completedAutomatedRollouts: completed,
    pendingAutomatedRollouts: [{ time: now + 2 * DAY, passPercent: 100 }],
    variants: [
      {
        name: 'on',
        passPercentage: 50,
        id: `${id}_v_on`,
        returnValue: on,
        returnValueJson5: JSON.stringify(on),
      },
      {
        name: 'off',
        passPercentage: 50,
        id: `${id}_v_off`,
        returnValue: { enabled: false },
        returnValueJson5: '{"enabled":false}',
      },
    ],
  };
}

function experiment(rng: Rng, e: { id: string; groups: string[]; status: string }, now: number): Experiment {
  const creator = rng.pick(PEOPLE);
  const team = rng.pick(TEAMS);
  const created = now - rng.int(20, 120) * DAY;
  const start = created + rng.int(1, 10) * DAY;
  const groups: ExperimentGroup[] = e.groups.map((name, k) => ({
    name,
    size: Math.floor(100 / e.groups.length),
    parameterValues: { variant: name },
    id: `${e.id}_grp_${k + 1}`,
    disabled: false,
    description: name === 'control' ? 'Current behaviour' : `Variant ${name}`,
    foreignGroupID: '',
  }));
  return {
    id: e.id,
    name: e.id.replaceAll('_', ' '),
    idType: 'userID',
    description: `Does ${e.id.replaceAll('_', ' ')} move purchases?`,
    hypothesis: 'The change increases purchases without hurting latency.',
    decisionReason: e.status === 'decision_made' ? 'Shipped test: significant lift' : '',
    layerID: `layer_${team.id}`,
    targetingGateID: `gate_${e.id}`,
    launchedGroupID: e.status === 'decision_made' ? `${e.id}_grp_2` : '',
    controlGroupID: `${e.id}_grp_1`,
    targetApps: 'web',
    team: team.name,
    teamID: team.id,
    secondaryIDType: '',
    identityResolutionSource: '',
    externalExperimentName: '',
    assignmentSourceName: '',
    assignmentSourceExperimentName: '',
    analysisEndTime: '',
    analyticsType: 'frequentist',
    inlineTargetingRulesJSON: '',
    creatorID: creator.id,
    creatorName: creator.name,
    creatorEmail: creator.email,
    lastModifierID: creator.id,
    lastModifierName: creator.name,
    lastModifierEmail: creator.email,
    createdTime: created,
    lastModifiedTime: start,
    startTime: start,
    endTime: e.status === 'decision_made' ? start + 14 * DAY : 0,
    decisionTime: e.status === 'decision_made' ? start + 15 * DAY : 0,
    status: e.status,
    tags: ['experiment'],
    holdoutIDs: [],
    primaryMetricTags: ['core'],
    secondaryMetricTags: [],
    allocation: rng.pick([10, 50, 100]),
    version: rng.int(1, 8),
    duration: 14,
    targetExposures: rng.int(5_000, 100_000),
    allocationDuration: 0,
    cohortedAnalysisDuration: 0,
    fixedAnalysisDuration: 0,
    scheduledReloadHour: 3,
    scheduledReloadDays: [1, 3, 5],
    bonferroniCorrection: false,
    bonferroniCorrectionPerMetric: false,
    benjaminiHochbergPerVariant: false,
    benjaminiHochbergPerMetric: false,
    benjaminiPrimaryMetricsOnly: false,
    sequentialTesting: rng.chance(0.5),
    isAnalysisOnly: false,
    cohortedMetricsMatureAfterEnd: false,
    cohortWaitUntilEndToInclude: false,
    turboMode: false,
    isSidecar: false,
    groups,
    primaryMetrics: [{ name: 'purchases', type: 'event_count', hypothesizedValue: 0.02 }],
    secondaryMetrics: [{ name: 'revenue', type: 'sum', hypothesizedValue: 0.01 }],
    otherMetrics: [],
    reviewSettings: {
      requiredReview: false,
      allowedReviewers: [{ id: creator.id, name: creator.name, email: creator.email }],
    },
    activeReview: { reviewID: '', reviewStatus: 'none', description: '' },
    links: [{ url: `https://wiki.example.com/experiments/${e.id}`, title: 'Design doc' }],
    manualQualityScores: [],
    assignmentSourceFilters: [],
    preComputedUserDimensions: [],
    cureCovariates: [],
    stratifiedSampling: {
      metric: { name: '', startDate: '', endDate: '' },
      entityPropertySource: { propertySourceName: '', column: '' },
      csv: { original: '', identifier: '' },
    },
    healthChecks: [
      {
        name: 'srm',
        description: 'Sample ratio mismatch check',
        metadata: {
          type: 'srm',
          primary_id_type: 'userID',
          secondary_id_type: '',
          assignmentSourceID: '',
          assignmentSourceName: '',
          foreignExperimentID: '',
          lastUpdatedDs: new Date(now - DAY).toISOString().slice(0, 10),
          lastPulseLoadTime: now - 6 * HOUR,
          crossoverPercent: 0.1,
          deduplication_rate: 0,
          deduplication_rates: groups.map((g) => ({ group_id: g.id, rate: 0, group_name: g.name })),
          missingMetrics: [],
          metrics: [
            {
              metric_name: 'purchases',
              earliest_date: new Date(start).toISOString(),
              latest_date: new Date(now - DAY).toISOString(),
            },
          ],
        },
      },
    ],
    owner: { ownerID: creator.id, ownerType: 'USER', ownerName: creator.name, ownerEmail: creator.email },
    summarySections: [{ name: 'Summary', content: 'Results pending.' }],
  };
}
