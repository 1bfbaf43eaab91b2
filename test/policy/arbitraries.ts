/**
 * Generators of valid policies (and their parts) for the property tests of the policy:
 * decide's invariants (properties.test.ts) and the normalized policy file (load.test.ts).
 */
import fc from 'fast-check';
import { parsePolicy } from '../../src/policy/parse.js';
import type { Policy, PolicyInput, TimeWindow } from '../../src/policy/schema.js';

export const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe', // 30-minute daylight-saving shift
  'America/Santiago', // changes at midnight: some days have no 00:00
  'Pacific/Chatham', // +12:45 / +13:45
];
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const FROM = Date.parse('2024-01-01T00:00:00Z');
const TO = Date.parse('2031-01-01T00:00:00Z');
export const HOUR = 3_600_000;

export const instantArb = fc.integer({ min: FROM, max: TO });
const clock = (max: number) =>
  fc
    .tuple(fc.integer({ min: 0, max }), fc.constantFrom(0, 15, 30, 45, 59))
    .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
export const windowArb: fc.Arbitrary<TimeWindow> = fc
  .record({
    days: fc.uniqueArray(fc.constantFrom(...DAYS), { minLength: 1, maxLength: 7 }),
    start: clock(23),
    end: fc.oneof(clock(23), fc.constant('24:00')),
  })
  .filter((w) => w.start !== w.end);
const globArb = fc.constantFrom(
  '*',
  'ci:*',
  'slack:*',
  'events:*',
  'schedule:*',
  'slack:U0ADMIN',
  'ci:deploy',
);
const idGlobArb = fc.constantFrom('*', 'trg_1', 'trg_*', 'ph_1', 'ph_*', 'x*');

const whenArb = fc.record({
  requesters: fc.array(globArb, { minLength: 1, maxLength: 3 }),
  triggers: fc.array(idGlobArb, { minLength: 1, maxLength: 2 }),
  phases: fc.array(idGlobArb, { minLength: 1, maxLength: 2 }),
});
// Windows and limits belong to approve rules only (the schema refuses them on deny and ask), and
// outsideWindows only beside windows (without them the rule approves at any time).
const ruleArb = fc.oneof(
  fc
    .record(
      {
        when: whenArb,
        decision: fc.constant('approve'),
        windows: fc.array(windowArb, { minLength: 1, maxLength: 3 }),
        outsideWindows: fc.constantFrom('defer', 'deny'),
        maxPerHour: fc.integer({ min: 1, max: 100 }),
      },
      { requiredKeys: ['when', 'decision'] },
    )
    .map(({ outsideWindows, ...rule }) =>
      rule.windows && outsideWindows ? { ...rule, outsideWindows } : rule,
    ),
  fc.record({ when: whenArb, decision: fc.constantFrom('deny', 'ask') }),
);

const freezeArb = fc
  .tuple(instantArb, fc.integer({ min: 1000, max: 30 * 24 * HOUR }))
  .map(([start, length]) => ({ start, end: start + length }));

const actionArb = fc.record(
  {
    requesters: fc.array(globArb, { maxLength: 3 }),
    maxPerDay: fc.integer({ min: 1, max: 50 }),
  },
  { requiredKeys: ['requesters'] },
);

/** Policy files as people write them (defaults left out), valid by construction. */
export const policyInputArb: fc.Arbitrary<PolicyInput> = fc
  .record({
    timezone: fc.constantFrom(...ZONES),
    rules: fc.array(ruleArb, { maxLength: 5 }),
    freezes: fc.array(freezeArb, { maxLength: 2 }),
    maxDeferHours: fc.integer({ min: 1, max: 336 }),
    disable: fc.option(actionArb, { nil: undefined }),
    archive: fc.option(
      fc.tuple(
        actionArb,
        fc.array(fc.constantFrom('checkout_*', 'keep_*', 'exact_config'), { maxLength: 3 }),
      ),
      { nil: undefined },
    ),
    grants: fc.dictionary(
      fc.constantFrom('U0ADMIN', 'U0RM', 'U1'),
      fc.uniqueArray(fc.constantFrom('approve_phase', 'disable_groups', 'archive_config', 'pause'), {
        maxLength: 4,
      }),
    ),
    staleDryRun: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map((p) => {
    const input: PolicyInput = {
      version: 1,
      timezone: p.timezone,
      approvals: {
        rules: p.rules.map((rule, index) => ({ ...rule, name: `rule ${index}` })) as NonNullable<
          PolicyInput['approvals']
        >['rules'],
        freezes: p.freezes.map((f, index) => ({
          name: `freeze ${index}`,
          start: new Date(f.start).toISOString(),
          end: new Date(f.end).toISOString(),
        })),
        maxDeferHours: p.maxDeferHours,
      },
      actions: {
        ...(p.disable ? { disable_groups: p.disable } : {}),
        ...(p.archive ? { archive_config: { ...p.archive[0], protect: p.archive[1] } } : {}),
      },
      chat: { teams: ['T0001'], grants: p.grants as Record<string, Array<'approve_phase'>> },
      ...(p.staleDryRun === undefined ? {} : { sweeper: { staleConfigs: { dryRun: p.staleDryRun } } }),
    };
    return input;
  });

/** Valid policies, as the loader returns them (defaults filled in). */
export const policyArb: fc.Arbitrary<Policy> = policyInputArb.map((input) =>
  parsePolicy(input, 'generated policy'),
);
