/** Policies and requests for the policy tests: one Berlin policy that exercises every branch. */
import type { ActionRequest } from '../../src/actions/request.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { RecordedDecision } from '../../src/policy/replay.js';
import type { Policy, PolicyInput, TimeWindow } from '../../src/policy/schema.js';

export const OFFICE_HOURS: TimeWindow[] = [
  { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' },
];

export const testPolicyInput = {
  version: 1,
  timezone: 'Europe/Berlin',
  approvals: {
    rules: [
      {
        name: 'no night triggers',
        when: { requesters: ['*'], triggers: ['trg_night*'], phases: ['*'] },
        decision: 'deny',
      },
      {
        name: 'strict CI only in office hours',
        when: { requesters: ['ci:strict/*'], triggers: ['*'], phases: ['*'] },
        decision: 'approve',
        windows: OFFICE_HOURS,
        outsideWindows: 'deny',
      },
      {
        name: 'CI in office hours',
        when: { requesters: ['ci:*'], triggers: ['*'], phases: ['*'] },
        decision: 'approve',
        windows: OFFICE_HOURS,
        outsideWindows: 'defer',
        maxPerHour: 30,
      },
      {
        name: 'canary checks approve the canary',
        when: { requesters: ['events:*'], triggers: ['*'], phases: ['ph_1'] },
        decision: 'approve',
      },
      {
        name: 'schedule asks a person',
        when: { requesters: ['schedule:*'], triggers: ['*'], phases: ['*'] },
        decision: 'ask',
      },
    ],
    freezes: [{ name: 'year-end', start: '2026-12-20T00:00:00Z', end: '2027-01-04T00:00:00Z' }],
    maxDeferHours: 72,
    otherwise: 'deny',
  },
  actions: {
    disable_groups: { requesters: ['slack:U0ADMIN', 'ci:ops/*'] },
    archive_config: {
      requesters: ['schedule:*', 'slack:U0ADMIN'],
      protect: ['checkout_*'],
      maxPerDay: 20,
    },
  },
  chat: {
    teams: ['T0001'],
    grants: {
      U0ADMIN: ['approve_phase', 'disable_groups', 'archive_config', 'pause'],
      U0RM: ['approve_phase'],
    },
  },
  sweeper: { staleConfigs: { configs: ['new_checkout_copy'], dryRun: true } },
} satisfies PolicyInput;

export const testPolicy: Policy = parsePolicy(testPolicyInput, 'test policy');

/** The test policy with some sections replaced. */
export function policyWith(overrides: Partial<PolicyInput>): Policy {
  return parsePolicy({ ...testPolicyInput, ...overrides }, 'test policy');
}

type Overrides = Partial<Record<string, unknown>>;

/** Monday 23 Nov 2026, 09:30 in Berlin: inside office hours. */
export const MONDAY_0930 = '2026-11-23T08:30:00Z';

export function approveRequest(overrides: Overrides = {}): ActionRequest {
  return {
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_2',
    requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
    requestedAt: '2026-11-23T08:00:00Z',
    ...overrides,
  } as ActionRequest;
}

export function archiveRequest(overrides: Overrides = {}): ActionRequest {
  return {
    version: 1,
    action: 'archive_config',
    configId: 'new_checkout_copy',
    reason: 'No exposures for 30 days',
    requestedBy: { source: 'schedule', id: 'stale-configs' },
    requestedAt: '2026-11-23T08:00:00Z',
    ...overrides,
  } as ActionRequest;
}

export function disableRequest(overrides: Overrides = {}): ActionRequest {
  return {
    version: 1,
    action: 'disable_groups',
    experimentId: 'exp_1',
    groupNames: ['test', 'control'],
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    requestedAt: '2026-11-23T08:00:00Z',
    ...overrides,
  } as ActionRequest;
}

/**
 * An audit record of a CI approval of phase `requestId` of trg_1, decided at `decidedAt` (its
 * inputs' `now`, requested then too), as `policy replay` reads it; `at` (written) defaults to it.
 */
export function ciApprovalRecord(
  record: Pick<RecordedDecision, 'requestId' | 'result' | 'rule' | 'target'> & Partial<RecordedDecision>,
  decidedAt: string,
  inputs: { channel?: boolean } = {},
): RecordedDecision {
  return {
    at: decidedAt,
    action: 'approve_phase',
    requester: 'ci:deploy.yml',
    ...record,
    inputs: {
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: record.requestId,
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: decidedAt,
        requestId: record.requestId,
      } as NonNullable<RecordedDecision['inputs']>['request'],
      now: decidedAt,
      pause: { paused: false },
      ...inputs,
    },
  };
}
