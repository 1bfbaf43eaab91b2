/**
 * Properties of the policy that must hold for every policy, request and time, not just the
 * examples of decide.test.ts: freezes deny, pause blocks, protected configs stay, decide
 * never throws and always explains itself; windows open where they say.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { RELEASE_MARGIN_MS } from '../../src/policy/action-rules.js';
import { type DecisionInput, decide, PAUSE_RECHECK_MS } from '../../src/policy/decide.js';
import type { Policy } from '../../src/policy/schema.js';
import {
  isWithinWindows,
  nextWindowOpening,
  offsetAt,
  wallDay,
  wallHour,
  wallTime,
} from '../../src/policy/windows.js';
import { HOUR, instantArb, policyArb, windowArb, ZONES } from './arbitraries.js';

const RUNS = 200;

const requesterArb = fc.record({
  source: fc.constantFrom('slack', 'ci', 'events', 'schedule'),
  id: fc.constantFrom('U0ADMIN', 'U0RM', 'U1', 'deploy', 'stale-configs'),
});

function requestArb(
  now: number,
  configIds: fc.Arbitrary<string> = fc.constantFrom('checkout_banner', 'keep_me', 'exact_config', 'other'),
  archivesOnly = false,
) {
  const common = {
    version: fc.constant(1),
    requestedBy: requesterArb,
    requestedAt: fc.integer({ min: now - 400 * HOUR, max: now + HOUR }).map((t) => new Date(t).toISOString()),
    dryRun: fc.option(fc.boolean(), { nil: undefined }),
  };
  const strip = <T extends object>(value: T): T =>
    Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
  const archive = fc.record({
    ...common,
    action: fc.constant('archive_config'),
    configId: configIds,
    reason: fc.constant('stale'),
    force: fc.option(fc.boolean(), { nil: undefined }),
  });
  if (archivesOnly) return archive.map((r) => strip(r) as ActionRequest);
  return fc
    .oneof(
      fc.record({
        ...common,
        action: fc.constant('approve_phase'),
        triggerId: fc.constantFrom('trg_1', 'trg_2', 'xtrg'),
        phaseId: fc.constantFrom('ph_1', 'ph_2'),
      }),
      fc.record({
        ...common,
        action: fc.constant('disable_groups'),
        experimentId: fc.constantFrom('exp_1'),
        groupNames: fc.constantFrom(['test'], ['a', 'b']),
      }),
      archive,
    )
    .map((r) => strip(r) as ActionRequest);
}

const inputArb = (nowArb: fc.Arbitrary<number> = instantArb) =>
  nowArb.chain((now) =>
    fc.record({
      request: requestArb(now),
      now: fc.constant(new Date(now)),
      pause: fc.oneof(
        fc.constant({ paused: false }),
        fc.constant({ paused: true, by: 'U0ADMIN', since: new Date(now - HOUR).toISOString() }),
      ),
      veto: fc.option(fc.constant({ by: 'U0RM', at: new Date(now - HOUR).toISOString() }), {
        nil: undefined,
      }),
    }),
  );

const scenarioArb = policyArb.chain((policy) => fc.tuple(fc.constant(policy), inputArb()));

function decideWith(
  policy: Policy,
  input: { request: ActionRequest; now: Date; pause: DecisionInput['pause']; veto?: DecisionInput['veto'] },
) {
  const decisionInput: DecisionInput = { request: input.request, now: input.now, pause: input.pause };
  if (input.veto) decisionInput.veto = input.veto;
  return decide(policy, decisionInput);
}

describe('decide, for any valid policy and request', () => {
  it('never throws and always names a rule and a reason; deferrals say until when', () => {
    fc.assert(
      fc.property(scenarioArb, ([policy, input]) => {
        const decision = decideWith(policy, input);
        const now = input.now.getTime();
        expect(['approve', 'deny', 'ask', 'defer']).toContain(decision.outcome);
        expect(decision.rule.length).toBeGreaterThan(0);
        expect(decision.reason.length).toBeGreaterThan(10);
        expect(typeof decision.dryRun).toBe('boolean');
        if (input.request.dryRun) expect(decision.dryRun).toBe(true);
        for (const d of [decision, decision.counter?.exceeded]) {
          if (d?.outcome !== 'defer') continue;
          expect(d.deferUntil?.getTime()).toBeGreaterThan(now);
          if (d.rule === 'pause') expect(d.deferUntil?.getTime()).toBeLessThanOrEqual(now + PAUSE_RECHECK_MS);
          // A promised wait ends early enough for the release tick to bring it back before the expiry.
          else
            expect(d.deferUntil?.getTime()).toBeLessThanOrEqual(
              Date.parse(input.request.requestedAt) +
                policy.approvals.maxDeferHours * HOUR -
                RELEASE_MARGIN_MS,
            );
        }
        if (decision.counter) {
          expect(decision.outcome).toBe('approve');
          expect(['defer', 'deny']).toContain(decision.counter.exceeded.outcome);
          expect(decision.counter.windowStart.getTime()).toBeLessThanOrEqual(now);
          expect(decision.counter.windowEnd.getTime()).toBeGreaterThan(now);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('denies whatever is asked at any time inside a freeze', () => {
    const frozen = policyArb
      .filter((policy) => policy.approvals.freezes.length > 0)
      .chain((policy) => {
        const freeze = policy.approvals.freezes[0]!;
        const during = fc.integer({ min: Date.parse(freeze.start), max: Date.parse(freeze.end) - 1 });
        return fc.tuple(fc.constant(policy), inputArb(during));
      });
    fc.assert(
      fc.property(frozen, ([policy, input]) => {
        const decision = decideWith(policy, input);
        expect(decision.outcome).toBe('deny');
        expect(decision.rule).toMatch(/^freeze:/);
      }),
      { numRuns: RUNS },
    );
  });

  it('never approves or asks while paused', () => {
    fc.assert(
      fc.property(scenarioArb, ([policy, input]) => {
        const decision = decideWith(policy, { ...input, pause: { paused: true } });
        expect(['defer', 'deny']).toContain(decision.outcome);
        expect(decision.counter).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  it('never archives a protected config, whoever asks, with or without force', () => {
    const protectedScenario = policyArb
      .filter((policy) => (policy.actions.archive_config?.protect.length ?? 0) > 0)
      .chain((policy) => {
        const globs = policy.actions.archive_config?.protect ?? [];
        const ids = fc
          .tuple(
            fc.constantFrom(...globs),
            fc.string({ unit: fc.constantFrom('a', 'b', '_', '1', '*'), maxLength: 8 }),
          )
          .map(([glob, suffix]) => glob.replace('*', suffix));
        return fc.tuple(
          fc.constant(policy),
          instantArb.chain((now) =>
            fc.record({
              request: requestArb(now, ids, true),
              now: fc.constant(new Date(now)),
              pause: fc.constantFrom({ paused: false }, { paused: true }),
              veto: fc.constant(undefined),
            }),
          ),
        );
      });
    fc.assert(
      fc.property(protectedScenario, ([policy, input]) => {
        const decision = decideWith(policy, input);
        expect(decision.outcome).toBe('deny');
      }),
      { numRuns: RUNS },
    );
  });
});

describe('windows, in any zone', () => {
  const outsideArb = fc
    .record({
      windows: fc.array(windowArb, { minLength: 1, maxLength: 3 }),
      zone: fc.constantFrom(...ZONES),
      instant: instantArb,
    })
    .filter(({ windows, instant, zone }) => !isWithinWindows(windows, instant, zone));

  it('the next opening is later, inside a window, and the first such second', () => {
    fc.assert(
      fc.property(outsideArb, ({ windows, instant, zone }) => {
        const next = nextWindowOpening(windows, instant, zone);
        expect(next).toBeDefined();
        const opening = next ?? 0;
        expect(opening).toBeGreaterThan(instant);
        expect(opening - instant).toBeLessThanOrEqual(8 * 24 * HOUR);
        expect(isWithinWindows(windows, opening, zone)).toBe(true);
        expect(isWithinWindows(windows, opening - 1000, zone)).toBe(false);
        // Spot-check the stretch before the opening: nothing inside it is missed.
        const step = Math.max(60_000, Math.floor((opening - instant) / 50));
        for (let t = instant; t < opening; t += step) expect(isWithinWindows(windows, t, zone)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  it('a clock hour contains its instant and shows one hour throughout, in any zone', () => {
    fc.assert(
      fc.property(instantArb, fc.constantFrom(...ZONES), (instant, zone) => {
        const { start, end } = wallHour(instant, zone);
        expect(start).toBeLessThanOrEqual(instant);
        expect(end).toBeGreaterThan(instant);
        expect(end - start).toBeLessThanOrEqual(HOUR);
        const hour = wallTime(instant, zone).hour;
        expect(wallTime(start, zone).hour).toBe(hour);
        expect(wallTime(end - 1000, zone).hour).toBe(hour);
        // It is the whole hour: a second earlier or at its end, the clock shows another hour or offset.
        for (const outside of [start - 1000, end]) {
          const other =
            wallTime(outside, zone).hour !== hour || offsetAt(outside, zone) !== offsetAt(instant, zone);
          expect(other).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('a calendar day contains its instant and starts on its own date', () => {
    fc.assert(
      fc.property(instantArb, fc.constantFrom(...ZONES), (instant, zone) => {
        const day = wallDay(instant, zone);
        expect(day.start).toBeLessThanOrEqual(instant);
        expect(day.end).toBeGreaterThan(instant);
        expect(day.end - day.start).toBeGreaterThanOrEqual(22 * HOUR);
        expect(day.end - day.start).toBeLessThanOrEqual(26 * HOUR);
        const start = wallTime(day.start, zone);
        expect(
          `${start.year}-${String(start.month).padStart(2, '0')}-${String(start.day).padStart(2, '0')}`,
        ).toBe(day.date);
        expect(wallTime(day.start - 1000, zone).day).not.toBe(start.day);
      }),
      { numRuns: RUNS },
    );
  });
});
