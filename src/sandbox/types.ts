/**
 * The sandbox's own types for the resources of the Console API spec (part 2). Written from
 * the spec, independently of the client in src/console (the point of the sandbox is to be a
 * second reading of the spec).
 */

export type Owner = {
  ownerID: string;
  ownerType: string;
  ownerName: string;
  ownerEmail: string;
  name?: string;
};

export type Role = { id: string; name: string; permissions: Record<string, boolean> };

export type ConfigRule = {
  id: string;
  baseID: string;
  name: string;
  passPercentage: number;
  environments: string[];
  returnValue: Record<string, unknown>;
  returnValueJson5: string;
  conditions: Array<{ targetValue: string[]; operator: string; field: string; customID: string }>;
  completedAutomatedRollouts: Array<{ time: number; passPercent: number }>;
  pendingAutomatedRollouts: Array<{ time: number; passPercent: number }>;
  variants: Array<{
    name: string;
    passPercentage: number;
    id: string;
    returnValue: Record<string, unknown>;
    returnValueJson5: string;
  }>;
};

export type DynamicConfig = {
  id: string;
  name: string;
  description: string;
  idType: string;
  isEnabled: boolean;
  isTemplate: boolean;
  version: number;
  checksPerHour: number;
  createdTime: number;
  lastModifiedTime: number;
  creatorID: string;
  creatorName: string;
  creatorEmail: string;
  lastModifierID: string;
  lastModifierName: string;
  lastModifierEmail: string;
  tags: string[];
  targetApps: string;
  holdoutIDs: string[];
  team: string;
  teamID: string;
  owner: Owner;
  defaultValue: Record<string, unknown>;
  defaultValueJson5: string;
  schema: string;
  schemaJson5: string;
  releasePipelineID: string;
  rules: ConfigRule[];
  /** Sandbox state, also returned (unknown fields are allowed by the spec). */
  archived: boolean;
  archiveReason?: string;
  archivedTime?: number;
};

export type SegmentCondition = {
  type: string;
  operator: string;
  targetValue: unknown;
  field: string;
  customID: string;
};

export type Segment = {
  id: string;
  isEnabled: boolean;
  description: string;
  lastModifierName: string;
  lastModifierID: string;
  type: 'id_list' | 'rule_based';
  count: number;
  tags: string[];
  rules?: {
    name: string;
    passPercentage: number;
    conditions: SegmentCondition[];
    returnValue: Record<string, unknown>;
  };
};

export type MetricSource = {
  name: string;
  sql: string;
  timestampColumn: string;
  idTypeMapping: Array<{ serviceUnitID: string; column: string }>;
  description?: string;
  tags?: string[];
  timestampAsDay?: boolean;
  sourceType?: 'table' | 'query';
  tableName?: string;
  datePartitionColumn?: string;
  customFieldMapping?: Array<{ key: string; formula: string }>;
  isReadOnly?: boolean;
  isVerified?: boolean;
  owner?: Owner;
  team?: string | null;
  teamID?: string | null;
};

export type Metric = {
  id: string;
  name: string;
  type: string;
  directionality: 'increase' | 'decrease';
  description: string;
  isPermanent: boolean;
  isReadOnly: boolean;
  isHidden: boolean;
  isVerified: boolean;
  tags: string[];
  creatorName: string;
  creatorEmail: string | null;
  createdTime: number;
  owner: Partial<Owner>;
  lineage: { events: string[]; metrics: string[] };
  team: string | null;
  teamID?: string | null;
  unitTypes: string[];
  metricEvents: Array<{ name: string; type: string; criteria: unknown[] }>;
  funnelCountDistinct?: 'events' | 'users';
  funnelEventList?: Array<{ name: string; type: string }>;
  warehouseNative?: Record<string, unknown>;
};

export type ExperimentGroup = {
  name: string;
  size: number;
  parameterValues: Record<string, unknown>;
  id: string;
  disabled: boolean;
  description: string;
  foreignGroupID: string;
};

/** Experiment (2.9). Many scalar fields: kept as a record of known keys plus the typed ones used. */
export type Experiment = Record<string, unknown> & {
  id: string;
  name: string;
  groups: ExperimentGroup[];
  version: number;
  lastModifiedTime: number;
};

export type TriggerAction = { timeMs: number; phaseID: string; actorName: string; actorID: string };

export type Phase = { id: string; name: string; durationMs: number; requiresReview: boolean };

export type Trigger = {
  id: string;
  releasePipelineID: string;
  creatorID: string;
  lastModifierID: string;
  lastModifierName: string;
  status: string;
  currentPhase: string;
  currentPhaseID: string;
  description: string;
  gateID: string;
  dynamicConfigID: string;
  configSnapshotID: string;
  createdTime: number;
  currentPhaseEndTime: number;
  actions: TriggerAction[];
};

/** A trigger as the sandbox keeps it: the spec's fields plus its pipeline's phase list. */
export type TriggerState = Trigger & { phases: Phase[] };

export type TeamMember = { email: string; firstName: string; lastName: string; role: string };
export type MetricRef = { name: string; type: string };

export type Team = {
  name: string;
  description?: string;
  members: TeamMember[];
  admins: string[];
  defaultGateMetrics: MetricRef[];
  defaultExperimentPrimaryMetrics: MetricRef[];
  defaultExperimentSecondaryMetrics: MetricRef[];
  defaultHoldoutMetrics: MetricRef[];
  defaultTargetApplications: string[];
  changeTeamConfigs: 'anyone' | 'team_only';
  reviewApproval: 'anyone' | 'team_only' | 'admin_only';
  defaultHoldoutID?: string | null;
  requireReviews?: boolean | null;
  requireGateTemplates?: boolean | null;
  requireExperimentTemplates?: boolean | null;
  requireDynamicConfigTemplates?: boolean | null;
};

export type EventRecord = {
  timestamp: string;
  name: string;
  source: string;
  value: string;
  userID: string;
  metadata: Record<string, unknown>;
};

export type EventOrder = 'newest-first' | 'oldest-first';
/** What the log is kept in: the events' own timestamps, or the order they reached it. */
export type EventListing = 'timestamp' | 'arrival';

/** An event handed to `addEvents`: name and timestamp (epoch ms, string or number) required. */
export type NewEvent = Omit<Partial<EventRecord>, 'timestamp' | 'name'> & {
  timestamp: string | number;
  name: string;
};
