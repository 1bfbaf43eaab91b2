/**
 * The counts a policy test case starts from (`state.counters`, src/policy/cases.ts): mutations
 * already counted in the current window, by approval rule name (maxPerHour) or action name
 * (maxPerDay), as the worker's counters key them (src/policy/action-rules.ts).
 */
import { CaseError } from './errors.js';
import type { Policy } from './schema.js';

/** Every name must be a limit of the policy: a misspelt one would count zero and a limit case pass. */
export function checkCounterNames(policy: Policy, counters: Readonly<Record<string, number>> = {}): void {
  const rules = policy.approvals.rules.filter((r) => r.maxPerHour !== undefined).map((r) => r.name);
  const actions = Object.entries(policy.actions).filter(([, section]) => section?.maxPerDay !== undefined);
  const known = [...rules, ...actions.map(([action]) => action)];
  const unknown = Object.keys(counters).filter((name) => !known.includes(name));
  const list = (names: string[]) => names.map((name) => JSON.stringify(name)).join(', ') || 'none';
  if (unknown.length > 0)
    throw new CaseError(
      `state.counters: ${list(unknown)} is no limit of this policy (it has ${list(known)})`,
    );
}

/** The count given for the counter `key` (`rule#<name>#hour#…` or `action#<name>#day#…`), else 0. */
export function countedFor(counters: Readonly<Record<string, number>> = {}, key: string): number {
  const entry = Object.entries(counters).find(
    ([name]) => key.startsWith(`rule#${name}#hour#`) || key.startsWith(`action#${name}#day#`),
  );
  return entry?.[1] ?? 0;
}
