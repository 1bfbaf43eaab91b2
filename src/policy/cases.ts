/**
 * Policy test cases: what a team expects its policy to decide, checked like code before deploy
 * (`autopilot policy test`, `cdk synth -c policyTests=…`). Pure: a case is decided with the same
 * `decide` the worker runs, at the case's time, with the state the case gives (pause, counters,
 * a veto); nothing here reads a file or a clock.
 */
import { z } from 'zod';
import type { ActionRequest } from '../actions/request.js';
import { actionRequestSchemas, futureDated, REQUESTER_SOURCES } from '../actions/request.js';
import { checkCounterNames, countedFor } from './case-counters.js';
import { type Decision, decide } from './decide.js';
import { CaseError } from './errors.js';
import { outcomeLabel } from './replay.js';
import type { Policy } from './schema.js';
import { instantsOfWallTime, wallTime } from './windows.js';

const OUTCOMES = ['approve', 'deny', 'ask', 'defer'] as const;
const ACTIONS = ['approve_phase', 'disable_groups', 'archive_config'] as const;

/** Why `pattern` is not a JavaScript regular expression, or undefined when it is one. */
function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function buildCasesSchema() {
  const shortRequest = z
    .strictObject({
      action: z.enum(ACTIONS).describe('The action asked for.'),
      target: z
        .string()
        .min(1)
        .describe(
          'approve_phase: "<triggerId>/<phaseId>"; disable_groups: "<experimentId>/<group>,<group>…"; archive_config: "<configId>".',
        ),
      requester: z
        .string()
        .regex(
          new RegExp(`^(${REQUESTER_SOURCES.join('|')}):.+$`),
          'source:id, e.g. ci:deploy.yml or slack:U0ADMIN',
        )
        .describe('Who asks, as the policy matches it: source:id.'),
      requestedAt: z
        .string()
        .optional()
        .describe('When the request was made (same formats as `at`); default: the case time.'),
      force: z.boolean().optional().describe('archive_config only: archive even if exposed.'),
      dryRun: z.boolean().optional(),
    })
    .describe('Short form of a request.');
  const testCase = z.strictObject({
    name: z.string().min(1).describe('Shown in the results table; unique in the file.'),
    at: z
      .string()
      .min(1)
      .describe(
        'The decision time: an ISO 8601 instant with an offset (2026-11-30T09:00:00+01:00), or a wall time in the policy time zone (2026-11-30T09:00).',
      ),
    request: z
      .union([shortRequest, z.object({ version: z.literal(1) }).passthrough()])
      .describe('A short form, or a full action request (version 1).'),
    state: z
      .strictObject({
        paused: z.boolean().optional().describe('As if /autopilot pause were in force.'),
        counters: z
          .record(z.string(), z.number().int().min(0))
          .optional()
          .describe(
            'Mutations already counted in the current window, by approval rule name (maxPerHour) or action name (maxPerDay).',
          ),
        veto: z
          .strictObject({ by: z.string().min(1), reason: z.string().optional() })
          .optional()
          .describe("A person's Deny on this request's effect."),
      })
      .optional(),
    expect: z.strictObject({
      outcome: z.enum(OUTCOMES),
      rule: z
        .string()
        .optional()
        .describe('The deciding rule: a rule name or a built-in (freeze:<name>, pause, …).'),
      reason: z
        .string()
        .superRefine((pattern, ctx) => {
          // Checked with the file, so that a typo is a bad cases file (exit 2), not a crash mid-run.
          const problem = regexProblem(pattern);
          if (problem) ctx.addIssue({ code: 'custom', message: `not a regular expression: ${problem}` });
        })
        .optional()
        .describe('A regular expression the reason must match.'),
      dryRun: z
        .boolean()
        .optional()
        .describe(
          'Whether the decision must be a dry run (recorded, nothing changed): a policy that makes it a real change fails.',
        ),
    }),
  });
  return z.strictObject({
    $schema: z.string().optional(),
    cases: z.array(testCase).min(1),
  });
}

let schema: ReturnType<typeof buildCasesSchema> | undefined;
export const policyCasesSchema = () => {
  schema ??= buildCasesSchema();
  return schema;
};
export type PolicyCases = z.infer<ReturnType<typeof buildCasesSchema>>;
export type PolicyCase = PolicyCases['cases'][number];

const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;
function daysInMonth(year: number, month: number): number {
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return last.getUTCDate();
}

/**
 * Refuses a date or time of day that no calendar or clock shows: `Date` and the wall-time
 * arithmetic would roll 2026-11-31 over to 1 December, and 24:00 over to the next day.
 */
function checkFields(text: string, [year, month, day, hour, minute, second]: number[]): void {
  const date = text.slice(0, 10);
  if (month! < 1 || month! > 12) throw new CaseError(`${date} is not a date: months run from 01 to 12`);
  const days = daysInMonth(year!, month!);
  if (day! < 1 || day! > days) {
    const name = new Intl.DateTimeFormat('en', { month: 'long', timeZone: 'UTC' }).format(
      Date.UTC(2000, month! - 1),
    );
    throw new CaseError(`${date} is not a date: ${name} ${year} has ${days} days`);
  }
  const time = text.slice(11).replace(/(Z|[+-]\d{2}:\d{2})$/, '');
  if (hour! > 23)
    throw new CaseError(
      `${time} is not a time of day: hours run from 00 to 23 (24:00 is 00:00 of the next day)`,
    );
  if (minute! > 59 || second! > 59)
    throw new CaseError(`${time} is not a time of day: minutes and seconds run from 00 to 59`);
}

/** An instant from an ISO time with an offset, or from a wall time in `zone` (refusing one that never or twice shows). */
export function caseInstant(text: string, zone: string): Date {
  const m = TIME.exec(text);
  if (!m)
    throw new CaseError(
      `"${text}" is neither an ISO instant with an offset nor a wall time like 2026-11-30T09:00`,
    );
  const fields = m.slice(1, 7).map((v) => Number(v ?? 0));
  checkFields(text, fields);
  if (m[7] !== undefined) {
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) throw new CaseError(`"${text}" is not a time`);
    return new Date(ms);
  }
  const [year, month, day, hour, minute, second] = fields as [number, number, number, number, number, number];
  const found = instantsOfWallTime({ year, month, day }, hour * 60 + minute, zone).map(
    (ms) => ms + second * 1000,
  );
  const shows = found.filter((ms) => {
    const wall = wallTime(ms, zone);
    return (
      wall.year === year &&
      wall.month === month &&
      wall.day === day &&
      wall.hour === hour &&
      wall.minute === minute
    );
  });
  if (shows.length === 0)
    throw new CaseError(`${text} never shows on clocks in ${zone} (a daylight-saving gap)`);
  if (shows.length > 1)
    throw new CaseError(`${text} shows twice in ${zone} (daylight saving ends): give an offset to say which`);
  return new Date(shows[0]!);
}

function targetFields(action: (typeof ACTIONS)[number], target: string): Record<string, unknown> {
  const [first, rest] = [target.split('/')[0] ?? '', target.split('/').slice(1).join('/')];
  if (action === 'approve_phase') {
    if (!rest) throw new CaseError(`approve_phase target must be "<triggerId>/<phaseId>", got "${target}"`);
    return { triggerId: first, phaseId: rest };
  }
  if (action === 'disable_groups') {
    if (!rest)
      throw new CaseError(`disable_groups target must be "<experimentId>/<group>,…", got "${target}"`);
    return { experimentId: first, groupNames: rest.split(',') };
  }
  return { configId: target, reason: 'policy test' };
}

/** The action request a case describes (validated like a queue message). */
export function caseRequest(testCase: PolicyCase, zone: string, at: Date): ActionRequest {
  const given = testCase.request as Record<string, unknown>;
  let raw: Record<string, unknown>;
  if ('version' in given) raw = given;
  else {
    const short = given as Extract<PolicyCase['request'], { target: string }>;
    const colon = short.requester.indexOf(':');
    raw = {
      version: 1,
      action: short.action,
      ...targetFields(short.action, short.target),
      requestedBy: { source: short.requester.slice(0, colon), id: short.requester.slice(colon + 1) },
      requestedAt: (short.requestedAt ? caseInstant(short.requestedAt, zone) : at).toISOString(),
      requestId: `policy-test`,
      ...(short.force === undefined ? {} : { force: short.force }),
      ...(short.dryRun === undefined ? {} : { dryRun: short.dryRun }),
    };
  }
  const parsed = actionRequestSchemas().actionRequest.safeParse(raw);
  if (!parsed.success)
    throw new CaseError(
      `not a valid action request: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** Decides a case as the worker would, counters included (a counter over its limit applies its `exceeded`). */
export function decideCase(policy: Policy, testCase: PolicyCase): Decision {
  const at = caseInstant(testCase.at, policy.timezone);
  const request = caseRequest(testCase, policy.timezone, at);
  // The worker dead-letters such a request before the policy sees it: no outcome would be true.
  const future = futureDated(request, at);
  if (future) throw new CaseError(`the worker refuses this request (requested-in-future): ${future}`);
  const state = testCase.state ?? {};
  checkCounterNames(policy, state.counters);
  const decision = decide(policy, {
    request,
    now: at,
    pause: state.paused ? { paused: true, by: 'policy test', since: at.toISOString() } : { paused: false },
    veto: state.veto ? { by: state.veto.by, at: at.toISOString(), reason: state.veto.reason } : undefined,
  });
  const counter = decision.counter;
  // A dry run takes no counter unit in the worker (it ends as would-mutate first): none here either.
  if (!counter || decision.dryRun) return decision;
  return countedFor(state.counters, counter.key) + 1 > counter.limit ? counter.exceeded : decision;
}

export interface CaseResult {
  name: string;
  expected: string;
  got: string;
  rule: string;
  reason: string;
  /** The decision is a dry run: the worker records it and changes nothing. */
  dryRun: boolean;
  pass: boolean;
  problem?: string;
}

/** Runs every case; a case that cannot be decided (bad time or request) fails with its problem. */
export function runCases(policy: Policy, cases: PolicyCases): CaseResult[] {
  return cases.cases.map((testCase) => {
    const { outcome, rule, dryRun } = testCase.expect;
    // A dry-run approval changes nothing, a real one changes production: shown apart, as replay does.
    const label = dryRun === undefined ? outcome : outcomeLabel(outcome, dryRun);
    const expected = rule ? `${label} by ${rule}` : label;
    try {
      const decision = decideCase(policy, testCase);
      const problems: string[] = [];
      if (decision.outcome !== testCase.expect.outcome) problems.push(`outcome ${decision.outcome}`);
      if (testCase.expect.rule !== undefined && decision.rule !== testCase.expect.rule)
        problems.push(`rule "${decision.rule}"`);
      if (testCase.expect.reason !== undefined && !new RegExp(testCase.expect.reason).test(decision.reason))
        problems.push(`reason does not match /${testCase.expect.reason}/`);
      if (dryRun !== undefined && decision.dryRun !== dryRun)
        problems.push(
          decision.dryRun ? 'a dry run (nothing changes)' : 'not a dry run (it changes production)',
        );
      return {
        name: testCase.name,
        expected,
        got: outcomeLabel(decision.outcome, decision.dryRun),
        rule: decision.rule,
        reason: decision.reason,
        dryRun: decision.dryRun,
        pass: problems.length === 0,
        ...(problems.length ? { problem: problems.join('; ') } : {}),
      };
    } catch (error) {
      if (!(error instanceof CaseError)) throw error;
      return {
        name: testCase.name,
        expected,
        got: 'error',
        rule: '',
        reason: error.message,
        dryRun: false,
        pass: false,
        problem: error.message,
      };
    }
  });
}
