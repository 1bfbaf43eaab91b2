/**
 * `autopilot policy diff`: what changed between two policies, in words a release manager reads
 * in a review. Approval rules are compared by name (added, removed, changed, reordered — and, for
 * a reorder, which requests now meet another rule first); everything else field by field, lists of
 * names as added/removed. Pure: it compares two parsed policies.
 */
import type { ApprovalRule, Policy } from './schema.js';

type Json = unknown;

const show = (value: Json): string => (typeof value === 'string' ? `"${value}"` : JSON.stringify(value));
const isPlainObject = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const named = (v: Json): v is Array<{ name: string }> =>
  Array.isArray(v) && v.every((x) => isPlainObject(x) && typeof x.name === 'string');

const uniqueNames = (items: Array<{ name: string }>) =>
  new Set(items.map((x) => x.name)).size === items.length;

/** Lists of named items (rules, freezes, event rules): compared by name. */
function describeNamedChanges(
  path: string,
  before: Array<{ name: string }>,
  after: Array<{ name: string }>,
  out: string[],
): void {
  // Freeze names need not be unique ("release freeze" at Christmas and in January): keyed by
  // name, two of them collapse into one, and removing or moving the first went unreported.
  if (!uniqueNames(before) || !uniqueNames(after)) {
    describeItemChanges(path, before, after, out);
    return;
  }
  const old = new Map(before.map((x) => [x.name, x]));
  const now = new Map(after.map((x) => [x.name, x]));
  for (const [name, value] of now) {
    if (!old.has(name)) out.push(`${path}: added "${name}" ${show(value)}`);
    else describeChanges(`${path} "${name}"`, old.get(name), value, out);
  }
  for (const name of old.keys()) if (!now.has(name)) out.push(`${path}: removed "${name}"`);
}

/** Items compared whole: each one the other list lacks (as often as it lacks it) is added or removed. */
function describeItemChanges(path: string, before: Json[], after: Json[], out: string[]): void {
  const unmatched = (items: Json[], others: Json[]) => {
    const left = others.map((x) => JSON.stringify(x));
    return items.filter((x) => {
      const at = left.indexOf(JSON.stringify(x));
      if (at === -1) return true;
      left.splice(at, 1);
      return false;
    });
  };
  for (const item of unmatched(after, before)) out.push(`${path}: added ${show(item)}`);
  for (const item of unmatched(before, after)) out.push(`${path}: removed ${show(item)}`);
}

/** Lists of plain values (globs, days, ids): what was added and removed, or that only the order changed. */
function describeListChanges(path: string, before: Json[], after: Json[], out: string[]): void {
  const added = after.filter((x) => !before.includes(x));
  const removed = before.filter((x) => !after.includes(x));
  const parts = [
    added.length ? `added ${added.map(show).join(', ')}` : '',
    removed.length ? `removed ${removed.map(show).join(', ')}` : '',
  ].filter(Boolean);
  out.push(`${path}: ${parts.length ? parts.join('; ') : `reordered to ${show(after)}`}`);
}

const plainList = (v: Json): v is Json[] => Array.isArray(v) && v.every((x) => typeof x !== 'object');

/** Fields that hold a credential: a diff says that they changed, never their values (CI logs, reviews). */
const CREDENTIALS = new Set(['notifications.slackWebhookUrl']);

/** Field-by-field differences under `path`, one line each. */
function describeChanges(path: string, before: Json, after: Json, out: string[]): void {
  if (JSON.stringify(before) === JSON.stringify(after)) return;
  if (CREDENTIALS.has(path))
    out.push(
      `${path}: ${before === undefined ? 'set' : after === undefined ? 'removed' : 'changed'} (a credential: not shown)`,
    );
  else if (before === undefined) out.push(`${path}: set to ${show(after)}`);
  else if (after === undefined) out.push(`${path}: removed (was ${show(before)})`);
  else if (named(before) && named(after)) describeNamedChanges(path, before, after, out);
  else if (plainList(before) && plainList(after)) describeListChanges(path, before, after, out);
  else if (isPlainObject(before) && isPlainObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)]))
      describeChanges(path ? `${path}.${key}` : key, before[key], after[key], out);
  } else out.push(`${path}: ${show(before)} → ${show(after)}`);
}

/** Whether two glob lists can both match one value (a `*` on either side, or a shared literal prefix up to a `*`). */
function globsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const stem = (g: string) => g.split('*')[0] ?? '';
  return a.some((x) =>
    b.some((y) => {
      if (x === y) return true;
      const [sx, sy] = [stem(x), stem(y)];
      const xWild = x.includes('*');
      const yWild = y.includes('*');
      if (xWild && yWild) return sx.startsWith(sy) || sy.startsWith(sx);
      if (xWild) return y.startsWith(sx);
      if (yWild) return x.startsWith(sy);
      return false;
    }),
  );
}

function rulesOverlap(a: ApprovalRule, b: ApprovalRule): boolean {
  return (
    globsOverlap(a.when.requesters, b.when.requesters) &&
    globsOverlap(a.when.triggers, b.when.triggers) &&
    globsOverlap(a.when.phases, b.when.phases)
  );
}

const who = (rule: ApprovalRule) =>
  `${rule.when.requesters.join(', ')} on triggers ${rule.when.triggers.join(', ')} phases ${rule.when.phases.join(', ')}`;

/** Rules whose relative order flipped, and what a request matching both now meets first. */
function describeReorders(before: ApprovalRule[], after: ApprovalRule[], out: string[]): void {
  const common = after.filter((r) => before.some((o) => o.name === r.name));
  const oldIndex = new Map(before.map((r, i) => [r.name, i]));
  for (let i = 0; i < common.length; i++) {
    for (let j = i + 1; j < common.length; j++) {
      const first = common[i] as ApprovalRule;
      const second = common[j] as ApprovalRule;
      if ((oldIndex.get(first.name) ?? 0) < (oldIndex.get(second.name) ?? 0)) continue;
      const effect = rulesOverlap(first, second)
        ? `requests from ${who(first)} that "${second.name}" also matches now meet "${first.name}" first: ${first.decision} instead of ${second.decision}`
        : 'they match no request in common, so no decision changes';
      out.push(`approvals.rules: "${first.name}" moved above "${second.name}" — ${effect}`);
    }
  }
}

/** Every difference between two policies, one line each; empty when they decide alike field for field. */
export function diffPolicies(before: Policy, after: Policy): string[] {
  const out: string[] = [];
  const { approvals: oldApprovals, ...oldRest } = before;
  const { approvals: newApprovals, ...newRest } = after;
  describeChanges('approvals.rules', oldApprovals.rules, newApprovals.rules, out);
  describeReorders(oldApprovals.rules, newApprovals.rules, out);
  const { rules: _old, ...oldOther } = oldApprovals;
  const { rules: _new, ...newOther } = newApprovals;
  describeChanges('approvals', oldOther, newOther, out);
  describeChanges('', oldRest, newRest, out);
  return out;
}
