/**
 * Policy test cases: what a team expects its policy to decide, checked like code before deploy
 * (`autopilot policy test`, `cdk synth -c policyTests=…`). Pure: a case is decided with the same
 * `decide` the worker runs, at the case's time, with the state the case gives (pause, counters,
 * a veto), and carried out as the worker carries it out in the deployment the case states (an
 * `ask` with no notifications channel, or too large for the buttons, is denied: ask-channel.ts);
 * nothing here reads a file or a clock.
 */
import { z } from 'zod';
import type { ActionRequest } from '../actions/request.js';
import { actionRequestSchemas, futureDated, REQUESTER_SOURCES } from '../actions/request.js';
import { type AsDeployed, asDeployed, channelContradiction, type NotAsked } from './ask-channel.js';
import { checkCounterNames, countedFor } from './case-counters.js';
import { caseInstant } from './case-time.js';
import { type Decision, decide } from './decide.js';
import { CaseError } from './errors.js';
import { outcomeLabel } from './replay.js';
import type { Policy } from './schema.js';

export { caseInstant } from './case-time.js';

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
    deployment: z
      .strictObject({
        channel: z
          .boolean()
          .optional()
          .describe(
            'Whether the worker has a notifications channel to ask in (slackWebhookUrl in its secret or the policy): without one it denies what the policy asks a person. Default: true; false is refused under a policy that names one.',
          ),
      })
      .optional()
      .describe('Facts of the deployment that change what the worker does with the decision.'),
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

/** A case decided as the deployed worker carries it out, with the channel it took as set or not. */
export interface CaseDecision extends AsDeployed {
  channel: boolean;
  /** The policy's own answer, when the worker carries out another (an `ask` it cannot ask). */
  policyOutcome?: Decision['outcome'];
}

/**
 * Decides a case as the worker would, counters included (a counter over its limit applies its
 * `exceeded`), and carries the answer out as the worker does in the case's deployment.
 */
export function decideCaseAsDeployed(policy: Policy, testCase: PolicyCase): CaseDecision {
  const at = caseInstant(testCase.at, policy.timezone);
  const request = caseRequest(testCase, policy.timezone, at);
  const channel = testCase.deployment?.channel ?? true;
  const contradiction = channelContradiction(policy, channel);
  if (contradiction) throw new CaseError(`the case says no channel, but ${contradiction}`);
  const decided = policyDecision(policy, testCase, request, at);
  const carried = asDeployed(decided, channel, request);
  return { ...carried, channel, ...(carried.notAsked ? { policyOutcome: decided.outcome } : {}) };
}

/** The decision the worker carries out for a case (decideCaseAsDeployed, without the details). */
export function decideCase(policy: Policy, testCase: PolicyCase): Decision {
  return decideCaseAsDeployed(policy, testCase).decision;
}

function policyDecision(policy: Policy, testCase: PolicyCase, request: ActionRequest, at: Date): Decision {
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
  /** Whether the case took the worker as having a notifications channel to ask in. */
  channel: boolean;
  /** The policy's own answer, when the worker carries out another (`got`): an `ask` it cannot ask. */
  policyOutcome?: Decision['outcome'];
  /** Why the worker does not ask what the policy asks. */
  notAsked?: NotAsked;
  pass: boolean;
  problem?: string;
}

/** How `decision` differs from what `expect` says; empty when the case passes. */
function problemsWith(decision: Decision, expect: PolicyCase['expect']): string[] {
  const problems: string[] = [];
  if (decision.outcome !== expect.outcome) problems.push(`outcome ${decision.outcome}`);
  if (expect.rule !== undefined && decision.rule !== expect.rule) problems.push(`rule "${decision.rule}"`);
  if (expect.reason !== undefined && !new RegExp(expect.reason).test(decision.reason))
    problems.push(`reason does not match /${expect.reason}/`);
  if (expect.dryRun !== undefined && decision.dryRun !== expect.dryRun)
    problems.push(decision.dryRun ? 'a dry run (nothing changes)' : 'not a dry run (it changes production)');
  return problems;
}

/** Runs every case; a case that cannot be decided (bad time or request) fails with its problem. */
export function runCases(policy: Policy, cases: PolicyCases): CaseResult[] {
  return cases.cases.map((testCase) => {
    const { outcome, rule, dryRun } = testCase.expect;
    // A dry-run approval changes nothing, a real one changes production: shown apart, as replay does.
    const label = dryRun === undefined ? outcome : outcomeLabel(outcome, dryRun);
    const expected = rule ? `${label} by ${rule}` : label;
    try {
      const { decision, channel, policyOutcome, notAsked } = decideCaseAsDeployed(policy, testCase);
      const problems = problemsWith(decision, testCase.expect);
      return {
        name: testCase.name,
        expected,
        got: outcomeLabel(decision.outcome, decision.dryRun),
        rule: decision.rule,
        reason: decision.reason,
        dryRun: decision.dryRun,
        channel,
        ...(notAsked ? { policyOutcome, notAsked } : {}),
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
        channel: testCase.deployment?.channel ?? true,
        pass: false,
        problem: error.message,
      };
    }
  });
}
