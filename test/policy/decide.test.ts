import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import {
  chatGrantsFor,
  type Decision,
  type DecisionInput,
  decide,
  describeDecision,
  isTeamAllowed,
  PAUSE_RECHECK_MS,
  requestExpiresAt,
} from '../../src/policy/decide.js';
import type { Policy } from '../../src/policy/schema.js';
import {
  approveRequest,
  archiveRequest,
  disableRequest,
  MONDAY_0930,
  OFFICE_HOURS,
  policyWith,
  testPolicy,
  testPolicyInput,
} from './fixtures.js';

const PAUSED = { paused: true, by: 'U0ADMIN', reason: 'incident 42', since: '2026-11-23T08:00:00Z' };
const VETO = { by: 'U0RM', at: '2026-11-23T08:10:00Z', reason: 'bad metrics' };

interface Case {
  name: string;
  request: ActionRequest;
  now?: string;
  pause?: DecisionInput['pause'];
  veto?: DecisionInput['veto'];
  policy?: Policy;
  expected: Partial<Omit<Decision, 'counter'>> & { rule: string; outcome: Decision['outcome'] };
  reason?: string[];
  counter?: {
    key: string;
    limit: number;
    windowStart: string;
    windowEnd: string;
    exceeded: Partial<Decision>;
  };
  noCounter?: boolean;
}

const cases: Case[] = [
  // 1. Freeze
  {
    name: 'a freeze denies an approval that a rule would allow',
    request: approveRequest({ requestedAt: '2026-12-21T08:00:00Z' }),
    now: '2026-12-21T08:30:00Z',
    expected: { outcome: 'deny', rule: 'freeze:year-end' },
    reason: ['the freeze "year-end" is in force', 'ask again after Mon 4 Jan 2027 01:00 CET'],
  },
  {
    name: 'a freeze denies even a person with the grant',
    request: approveRequest({
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestedAt: '2026-12-21T08:00:00Z',
    }),
    now: '2026-12-21T08:30:00Z',
    expected: { outcome: 'deny', rule: 'freeze:year-end' },
  },
  {
    name: 'a freeze beats the pause',
    request: approveRequest({ requestedAt: '2026-12-21T08:00:00Z' }),
    now: '2026-12-21T08:30:00Z',
    pause: PAUSED,
    expected: { outcome: 'deny', rule: 'freeze:year-end' },
  },
  {
    name: 'a freeze ends at its end (exclusive)',
    request: approveRequest({ requestedAt: '2027-01-04T08:00:00Z' }),
    now: '2027-01-04T08:30:00Z',
    expected: { outcome: 'approve', rule: 'CI in office hours' },
  },
  // 2. Protect
  {
    name: 'a protected config is not archived, even by the admin with force',
    request: archiveRequest({
      configId: 'checkout_banner',
      force: true,
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
    }),
    expected: { outcome: 'deny', rule: 'protect' },
    reason: ['protected by "checkout_*"', 'even with force'],
  },
  {
    // The platform evaluates names whatever their case (the sweeper counts `New_Checkout_Copy` as a
    // use of `new_checkout_copy`), so a name in another case is the same, protected config.
    name: 'a protected config is protected whatever the case of its name',
    request: archiveRequest({ configId: 'Checkout_Banner' }),
    expected: { outcome: 'deny', rule: 'protect' },
    reason: ['protected by "checkout_*"'],
  },
  {
    name: 'a protected config is denied, not deferred, while paused',
    request: archiveRequest({ configId: 'checkout_banner' }),
    pause: PAUSED,
    expected: { outcome: 'deny', rule: 'protect' },
  },
  // 3. Pause
  {
    name: 'pause defers an approval inside its window by 15 minutes',
    request: approveRequest(),
    pause: PAUSED,
    expected: {
      outcome: 'defer',
      rule: 'pause',
      deferUntil: new Date(Date.parse(MONDAY_0930) + PAUSE_RECHECK_MS),
    },
    reason: ['paused by U0ADMIN', 'incident 42', 'held until someone resumes automation (`resume`)'],
  },
  {
    name: 'pause defers even a person with the grant',
    request: approveRequest({ requestedBy: { source: 'slack', id: 'U0ADMIN' } }),
    pause: PAUSED,
    expected: { outcome: 'defer', rule: 'pause' },
  },
  {
    name: 'pause beats maxDeferHours (expiry is judged after resume)',
    request: approveRequest({ requestedAt: '2026-11-19T08:00:00Z' }),
    pause: { paused: true },
    expected: { outcome: 'defer', rule: 'pause' },
    reason: ['automation is paused; held until'],
  },
  // 4. maxDeferHours
  {
    name: 'a request older than maxDeferHours is denied',
    request: approveRequest({ requestedAt: '2026-11-20T08:00:00Z' }),
    expected: { outcome: 'deny', rule: 'maxDeferHours' },
    reason: ['more than 72 hours ago', 'expired Mon 23 Nov 09:00 CET', 'send a new request'],
  },
  {
    name: 'a request exactly maxDeferHours old is still decided by the rules',
    request: approveRequest({ requestedAt: '2026-11-20T08:30:00Z' }),
    expected: { outcome: 'approve', rule: 'CI in office hours' },
  },
  {
    name: 'maxDeferHours applies to people too',
    request: approveRequest({
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestedAt: '2026-11-19T08:00:00Z',
    }),
    expected: { outcome: 'deny', rule: 'maxDeferHours' },
  },
  // 5. Chat grant
  {
    name: 'a person with the grant approves outside the windows',
    request: approveRequest({
      requestedBy: { source: 'slack', id: 'U0RM' },
      requestedAt: '2026-11-22T21:00:00Z',
    }),
    now: '2026-11-22T22:00:00Z',
    expected: { outcome: 'approve', rule: 'chat grant' },
    reason: ['Slack user U0RM holds the chat grant "approve_phase"'],
    noCounter: true,
  },
  {
    name: 'a person with the grant overrides a veto',
    request: approveRequest({ requestedBy: { source: 'slack', id: 'U0ADMIN' } }),
    veto: VETO,
    expected: { outcome: 'approve', rule: 'chat grant' },
    reason: ['overrides the earlier Deny by U0RM'],
  },
  {
    name: 'a person with the grant approves a trigger a rule denies',
    request: approveRequest({ triggerId: 'trg_night_1', requestedBy: { source: 'slack', id: 'U0RM' } }),
    expected: { outcome: 'approve', rule: 'chat grant' },
  },
  {
    name: 'a grant is per action: approve_phase does not let a person archive',
    request: archiveRequest({ requestedBy: { source: 'slack', id: 'U0RM' } }),
    expected: { outcome: 'deny', rule: 'actions.archive_config' },
    reason: ['slack:U0RM is not among those allowed to archive configs'],
  },
  {
    name: 'a Slack id that only looks like a granted user in another source has no grant',
    request: approveRequest({
      requestedBy: { source: 'ci', id: 'U0ADMIN' },
      requestedAt: '2026-11-22T21:00:00Z',
    }),
    now: '2026-11-22T22:00:00Z',
    expected: { outcome: 'defer', rule: 'CI in office hours' },
  },
  // 6. Veto
  {
    name: 'a veto denies an automated approval inside its window',
    request: approveRequest(),
    veto: VETO,
    expected: { outcome: 'deny', rule: 'veto' },
    reason: ['U0RM denied trigger trg_1 phase ph_2 at Mon 23 Nov 09:10 CET', 'bad metrics'],
  },
  {
    name: 'a veto denies a Slack user without the grant',
    request: approveRequest({ requestedBy: { source: 'slack', id: 'U0NOBODY' } }),
    veto: { by: 'U0RM', at: '2026-11-23T08:10:00Z' },
    expected: { outcome: 'deny', rule: 'veto' },
  },
  {
    name: 'a veto denies a sweeper archive',
    request: archiveRequest(),
    veto: VETO,
    expected: { outcome: 'deny', rule: 'veto', dryRun: true },
  },
  // 7a. Approval rules
  {
    name: 'the first matching rule wins (a deny rule before an approve rule)',
    request: approveRequest({ triggerId: 'trg_night_7' }),
    expected: { outcome: 'deny', rule: 'no night triggers' },
    reason: ['rule "no night triggers" denies ci:github-actions/deploy.yml'],
  },
  {
    name: 'inside its windows a rule approves with an hourly counter',
    request: approveRequest(),
    expected: { outcome: 'approve', rule: 'CI in office hours', dryRun: false },
    reason: ["inside the rule's windows (Mon–Fri 09:00–17:00 Europe/Berlin)"],
    counter: {
      key: 'rule#CI in office hours#hour#2026-11-23T08',
      limit: 30,
      windowStart: '2026-11-23T08:00:00Z',
      windowEnd: '2026-11-23T09:00:00Z',
      exceeded: {
        outcome: 'defer',
        rule: 'CI in office hours',
        deferUntil: new Date('2026-11-23T09:00:00Z'),
      },
    },
  },
  {
    // Asia/Kolkata is UTC+05:30: its clock hours are not UTC hours, and 10:15 and 10:45 share one.
    name: 'an hourly counter counts clock hours in the policy zone, also where the offset is not whole hours',
    request: approveRequest({ requestedAt: '2026-11-23T04:40:00Z' }),
    now: '2026-11-23T04:45:00Z',
    policy: policyWith({
      timezone: 'Asia/Kolkata',
      approvals: {
        rules: [{ name: 'CI', when: { requesters: ['ci:*'] }, decision: 'approve', maxPerHour: 1 }],
      },
    }),
    expected: { outcome: 'approve', rule: 'CI' },
    counter: {
      key: 'rule#CI#hour#2026-11-23T04:30',
      limit: 1,
      windowStart: '2026-11-23T04:30:00Z',
      windowEnd: '2026-11-23T05:30:00Z',
      exceeded: {
        outcome: 'defer',
        deferUntil: new Date('2026-11-23T05:30:00Z'),
        reason: expect.stringContaining("this hour's (10:00–11:00 Asia/Kolkata) are used up"),
      },
    },
  },
  {
    // 02:30:00.500 CEST on the night the clocks go back: the hour ends at the change, and an instant
    // with milliseconds once made the search for it loop for ever (found by a property run).
    name: 'an hourly counter in the hour before a clock change, at an instant with milliseconds',
    request: approveRequest({ requestedAt: '2026-10-25T00:30:00Z' }),
    now: '2026-10-25T00:30:00.500Z',
    policy: policyWith({
      timezone: 'Europe/Berlin',
      approvals: {
        rules: [{ name: 'CI', when: { requesters: ['ci:*'] }, decision: 'approve', maxPerHour: 1 }],
      },
    }),
    expected: { outcome: 'approve', rule: 'CI' },
    counter: {
      key: 'rule#CI#hour#2026-10-25T00',
      limit: 1,
      windowStart: '2026-10-25T00:00:00Z',
      windowEnd: '2026-10-25T01:00:00Z',
      exceeded: { outcome: 'defer', deferUntil: new Date('2026-10-25T01:00:00Z') },
    },
  },
  {
    // 16:30 Berlin: the next hour starts at 17:00, when the window has closed and the rule denies.
    name: 'an exhausted hourly limit near the end of a denying window denies instead of deferring to a refusal',
    request: approveRequest({ requestedAt: '2026-11-23T15:30:00Z' }),
    now: '2026-11-23T15:30:00Z',
    policy: policyWith({
      approvals: {
        rules: [
          {
            name: 'strict',
            when: {},
            decision: 'approve',
            windows: [...OFFICE_HOURS],
            outsideWindows: 'deny',
            maxPerHour: 1,
          },
        ],
      },
    }),
    expected: { outcome: 'approve', rule: 'strict' },
    counter: {
      key: 'rule#strict#hour#2026-11-23T15',
      limit: 1,
      windowStart: '2026-11-23T15:00:00Z',
      windowEnd: '2026-11-23T16:00:00Z',
      exceeded: {
        outcome: 'deny',
        rule: 'strict',
        reason: expect.stringContaining(
          'the rule denies outside its windows; ask again after Tue 24 Nov 09:00 CET',
        ),
      },
    },
  },
  {
    name: 'an exhausted hourly limit near the end of a deferring window defers to the next opening, not to the closed hour',
    request: approveRequest({ requestedAt: '2026-11-23T15:30:00Z' }),
    now: '2026-11-23T15:30:00Z',
    policy: policyWith({
      approvals: {
        rules: [{ name: 'office', when: {}, decision: 'approve', windows: [...OFFICE_HOURS], maxPerHour: 1 }],
      },
    }),
    expected: { outcome: 'approve', rule: 'office' },
    counter: {
      key: 'rule#office#hour#2026-11-23T15',
      limit: 1,
      windowStart: '2026-11-23T15:00:00Z',
      windowEnd: '2026-11-23T16:00:00Z',
      exceeded: { outcome: 'defer', rule: 'office', deferUntil: new Date('2026-11-24T08:00:00Z') },
    },
  },
  {
    name: 'an exhausted hourly limit that would outlast maxDeferHours denies',
    request: approveRequest({ requestedAt: '2026-11-20T08:45:00Z' }),
    expected: { outcome: 'approve', rule: 'CI in office hours' },
    counter: {
      key: 'rule#CI in office hours#hour#2026-11-23T08',
      limit: 30,
      windowStart: '2026-11-23T08:00:00Z',
      windowEnd: '2026-11-23T09:00:00Z',
      exceeded: { outcome: 'deny', rule: 'maxDeferHours' },
    },
  },
  {
    name: 'outside its windows a deferring rule defers to the next opening',
    request: approveRequest({ requestedAt: '2026-11-22T21:00:00Z' }),
    now: '2026-11-22T22:00:00Z',
    expected: { outcome: 'defer', rule: 'CI in office hours', deferUntil: new Date('2026-11-23T08:00:00Z') },
    reason: [
      "outside the rule's windows (Mon–Fri 09:00–17:00 Europe/Berlin); deferred until Mon 23 Nov 09:00 CET",
    ],
    noCounter: true,
  },
  {
    name: 'outside its windows a rule that leaves outsideWindows out defers (its default)',
    request: approveRequest({ requestedAt: '2026-11-22T21:00:00Z' }),
    now: '2026-11-22T22:00:00Z',
    policy: policyWith({
      approvals: {
        rules: [{ name: 'office hours', when: {}, decision: 'approve', windows: [...OFFICE_HOURS] }],
      },
    }),
    expected: { outcome: 'defer', rule: 'office hours', deferUntil: new Date('2026-11-23T08:00:00Z') },
  },
  {
    name: 'outside its windows a denying rule denies and says when the window opens',
    request: approveRequest({
      requestedBy: { source: 'ci', id: 'strict/deploy' },
      requestedAt: '2026-11-22T21:00:00Z',
    }),
    now: '2026-11-22T22:00:00Z',
    expected: { outcome: 'deny', rule: 'strict CI only in office hours' },
    reason: ['the rule denies outside its windows; ask again after Mon 23 Nov 09:00 CET'],
  },
  {
    name: 'a window opening after the request expires denies instead of deferring',
    request: approveRequest({ requestedAt: '2026-11-25T17:00:00Z' }),
    now: '2026-11-27T16:30:00Z',
    expected: { outcome: 'deny', rule: 'maxDeferHours' },
    reason: ['would wait until Mon 30 Nov 09:00 CET, but the request expires Sat 28 Nov 18:00 CET'],
  },
  {
    name: 'a rule without windows or limit approves at any time without a counter',
    request: approveRequest({
      requestedBy: { source: 'events', id: 'release_checks_passed' },
      phaseId: 'ph_1',
    }),
    now: '2026-11-22T22:00:00Z',
    expected: { outcome: 'approve', rule: 'canary checks approve the canary' },
    noCounter: true,
  },
  {
    name: 'an ask rule asks a person',
    request: approveRequest({ requestedBy: { source: 'schedule', id: 'nightly' } }),
    expected: { outcome: 'ask', rule: 'schedule asks a person' },
    reason: ['Approve or Deny in Slack'],
  },
  {
    name: 'no matching rule denies (otherwise): wrong phase for the events rule',
    request: approveRequest({ requestedBy: { source: 'events', id: 'x' }, phaseId: 'ph_3' }),
    expected: { outcome: 'deny', rule: 'otherwise' },
    reason: ['no approval rule matches events:x for trigger trg_1 phase ph_3'],
  },
  {
    name: 'no matching rule denies (otherwise): a Slack user without the grant',
    request: approveRequest({ requestedBy: { source: 'slack', id: 'U0NOBODY' } }),
    expected: { outcome: 'deny', rule: 'otherwise' },
  },
  {
    name: 'an empty policy denies everything',
    request: approveRequest(),
    policy: policyWith({ approvals: {}, actions: {}, chat: {} }),
    expected: { outcome: 'deny', rule: 'otherwise' },
  },
  // 7b. archive_config
  {
    name: 'the sweeper archives with a daily counter in the policy zone, as a dry run by policy',
    request: archiveRequest(),
    expected: { outcome: 'approve', rule: 'actions.archive_config', dryRun: true },
    counter: {
      key: 'action#archive_config#day#2026-11-23',
      limit: 20,
      windowStart: '2026-11-22T23:00:00Z',
      windowEnd: '2026-11-23T23:00:00Z',
      exceeded: { outcome: 'defer', deferUntil: new Date('2026-11-23T23:00:00Z'), dryRun: true },
    },
  },
  {
    name: 'the sweeper archives for real when the stale-config policy is not a dry run',
    request: archiveRequest(),
    policy: policyWith({ sweeper: { staleConfigs: { dryRun: false } } }),
    expected: { outcome: 'approve', rule: 'actions.archive_config', dryRun: false },
  },
  {
    name: "a person's archive is not a dry run by the sweeper's setting",
    request: archiveRequest({ requestedBy: { source: 'slack', id: 'U0ADMIN' } }),
    expected: { outcome: 'approve', rule: 'chat grant', dryRun: false },
  },
  {
    name: 'an archive from a requester not listed is denied',
    request: archiveRequest({ requestedBy: { source: 'ci', id: 'cleanup' } }),
    expected: { outcome: 'deny', rule: 'actions.archive_config' },
    reason: ['actions.archive_config.requesters: schedule:*, slack:U0ADMIN'],
  },
  {
    name: 'an exhausted daily archive limit late in the request life denies',
    request: archiveRequest({ requestedAt: '2026-11-20T09:00:00Z' }),
    expected: { outcome: 'approve', rule: 'actions.archive_config' },
    counter: {
      key: 'action#archive_config#day#2026-11-23',
      limit: 20,
      windowStart: '2026-11-22T23:00:00Z',
      windowEnd: '2026-11-23T23:00:00Z',
      exceeded: { outcome: 'deny', rule: 'maxDeferHours' },
    },
  },
  {
    name: 'without an archive_config section nobody archives',
    request: archiveRequest(),
    policy: policyWith({ actions: { disable_groups: { requesters: ['*'] } } }),
    expected: { outcome: 'deny', rule: 'otherwise' },
    reason: ['no actions.archive_config section'],
  },
  // 7c. disable_groups
  {
    name: 'an allowed automated requester disables groups without a counter',
    request: disableRequest({ requestedBy: { source: 'ci', id: 'ops/rollback' } }),
    expected: { outcome: 'approve', rule: 'actions.disable_groups' },
    noCounter: true,
  },
  {
    name: 'disable-groups from a requester not listed is denied',
    request: disableRequest({ requestedBy: { source: 'ci', id: 'other' } }),
    expected: { outcome: 'deny', rule: 'actions.disable_groups' },
  },
  {
    name: 'disable-groups with maxPerDay carries a daily counter',
    request: disableRequest({ requestedBy: { source: 'ci', id: 'ops/rollback' } }),
    policy: policyWith({ actions: { disable_groups: { requesters: ['ci:*'], maxPerDay: 3 } } }),
    expected: { outcome: 'approve', rule: 'actions.disable_groups' },
    counter: {
      key: 'action#disable_groups#day#2026-11-23',
      limit: 3,
      windowStart: '2026-11-22T23:00:00Z',
      windowEnd: '2026-11-23T23:00:00Z',
      exceeded: { outcome: 'defer', rule: 'actions.disable_groups' },
    },
  },
  {
    name: 'without a disable_groups section nobody disables groups automatically',
    request: disableRequest({ requestedBy: { source: 'ci', id: 'ops/rollback' } }),
    policy: policyWith({ actions: {} }),
    expected: { outcome: 'deny', rule: 'otherwise' },
  },
  // Dry run
  {
    name: 'a dry-run request stays a dry run whatever the outcome',
    request: approveRequest({ dryRun: true, triggerId: 'trg_night_1' }),
    expected: { outcome: 'deny', rule: 'no night triggers', dryRun: true },
  },
];

describe('decide', () => {
  it.each(cases)('$name', (c) => {
    const input: DecisionInput = {
      request: c.request,
      now: new Date(c.now ?? MONDAY_0930),
      pause: c.pause ?? { paused: false },
    };
    if (c.veto) input.veto = c.veto;
    const decision = decide(c.policy ?? testPolicy, input);
    expect(decision).toMatchObject(c.expected);
    for (const words of c.reason ?? []) expect(decision.reason).toContain(words);
    expect(decision.reason.length).toBeGreaterThan(10);
    if (decision.outcome === 'defer') expect(decision.deferUntil).toBeInstanceOf(Date);
    else expect(decision.deferUntil).toBeUndefined();
    if (c.noCounter) expect(decision.counter).toBeUndefined();
    if (c.counter) {
      expect(decision.counter).toMatchObject({
        key: c.counter.key,
        limit: c.counter.limit,
        windowStart: new Date(c.counter.windowStart),
        windowEnd: new Date(c.counter.windowEnd),
        exceeded: c.counter.exceeded,
      });
      expect(decision.counter?.exceeded.counter).toBeUndefined();
    }
  });

  it('does not modify its inputs and answers the same twice', () => {
    const policy = structuredClone(testPolicy);
    const input = { request: approveRequest(), now: new Date(MONDAY_0930), pause: { paused: false } };
    const before = structuredClone({ policy, input });
    const first = decide(policy, input);
    expect(decide(policy, input)).toEqual(first);
    expect({ policy, input }).toEqual(before);
  });

  it('denies when the current time is not a valid time', () => {
    const decision = decide(testPolicy, {
      request: approveRequest(),
      now: new Date(Number.NaN),
      pause: { paused: false },
    });
    expect(decision).toMatchObject({ outcome: 'deny', rule: 'otherwise' });
  });
});

describe('helpers', () => {
  it('lists the chat grants of a user, none for strangers and object keys', () => {
    expect(chatGrantsFor(testPolicy, 'U0RM')).toEqual(['approve_phase']);
    expect(chatGrantsFor(testPolicy, 'U0NOBODY')).toEqual([]);
    expect(chatGrantsFor(testPolicy, 'constructor')).toEqual([]);
    expect(chatGrantsFor(testPolicy, '__proto__')).toEqual([]);
  });

  it('allows only the listed Slack teams', () => {
    expect(isTeamAllowed(testPolicy, 'T0001')).toBe(true);
    expect(isTeamAllowed(testPolicy, 'T9999')).toBe(false);
    expect(isTeamAllowed(policyWith({ chat: {} }), 'T0001')).toBe(false);
  });

  it('computes when a request expires', () => {
    expect(requestExpiresAt(testPolicy, approveRequest()).toISOString()).toBe('2026-11-26T08:00:00.000Z');
  });

  it('describes a decision in one paragraph with its rule, limit and dry run', () => {
    const decision = decide(testPolicy, {
      request: archiveRequest(),
      now: new Date(MONDAY_0930),
      pause: { paused: false },
    });
    const text = describeDecision(decision);
    expect(text).toMatch(/^Approved \(rule: actions\.archive_config\): /);
    expect(text).toContain('Counts against a limit of 20 (counter action#archive_config#day#2026-11-23');
    expect(text).toContain('beyond it: deferred');
    expect(text).toContain('Dry run: decided and recorded, nothing is changed.');
  });

  it('describes a deferral with when it is looked at again', () => {
    const decision = decide(testPolicy, {
      request: approveRequest({ requestedAt: '2026-11-22T21:00:00Z' }),
      now: new Date('2026-11-22T22:00:00Z'),
      pause: { paused: false },
    });
    expect(describeDecision(decision)).toBe(
      "Deferred (rule: CI in office hours): outside the rule's windows (Mon–Fri 09:00–17:00 Europe/Berlin); " +
        'deferred until Mon 23 Nov 09:00 CET. Looked at again at 2026-11-23T08:00:00.000Z.',
    );
  });

  it('keeps the fixture policy in step with its input', () => {
    expect(testPolicy.approvals.rules).toHaveLength(testPolicyInput.approvals.rules.length);
  });
});
