/**
 * Matching a request against the policy's lists: the freeze in force, the first approval rule
 * that matches (first match wins, `*` globs on requester, trigger and phase), protect globs.
 * Pure lookups; the decision itself is in decide.ts.
 */
import type { ApprovePhaseRequest } from '../actions/request.js';
import { requesterKey } from '../actions/request.js';
import { matchesAny, protectingGlobOf } from '../util/glob.js';
import type { ApprovalRule, Freeze, Policy } from './schema.js';

/** The first freeze in force at `now` (start inclusive, end exclusive). */
export function activeFreeze(policy: Policy, now: number): Freeze | undefined {
  return policy.approvals.freezes.find((f) => Date.parse(f.start) <= now && now < Date.parse(f.end));
}

/**
 * The first instant from `at` on that no freeze covers: past the freeze in force and every
 * freeze that overlaps or adjoins it (a denial's "ask again after" must not name a frozen time).
 */
export function frozenUntil(policy: Policy, at: number): number {
  let until = at;
  // Each step ends a freeze for good (`until` moves past its end): at most one per freeze.
  for (let active = activeFreeze(policy, until); active; active = activeFreeze(policy, until)) {
    until = Date.parse(active.end);
  }
  return until;
}

/** The first approval rule whose requesters, triggers and phases all match, with its position. */
export function firstMatchingRule(
  policy: Policy,
  request: ApprovePhaseRequest,
): { rule: ApprovalRule; index: number } | undefined {
  const requester = requesterKey(request.requestedBy);
  const index = policy.approvals.rules.findIndex(
    (rule) =>
      matchesAny(rule.when.requesters, requester) &&
      matchesAny(rule.when.triggers, request.triggerId) &&
      matchesAny(rule.when.phases, request.phaseId),
  );
  const rule = policy.approvals.rules[index];
  return rule ? { rule, index } : undefined;
}

/** The protect glob a config id matches, if any. */
export function protectingGlob(policy: Policy, configId: string): string | undefined {
  return protectingGlobOf(policy.actions.archive_config?.protect ?? [], configId);
}
