/**
 * What `autopilot policy check` warns about in a valid policy: choices that are legal but let
 * untrusted input reach a production mutation. Logged events are written by client SDKs, so
 * anyone holding a client key can log one: an event rule that approves must be narrow (named
 * requester, listed phases, target ids constrained in `match`), and an approval needs a cap.
 * Pure: the policy in, the warnings out.
 */
import { globMatch } from '../util/glob.js';
import { EVENT_PATH } from './event-paths.js';
import { grantKeyWarning } from './grant-keys.js';
import { deadRequesterWarnings } from './requester-warnings.js';
import { shadowedRuleWarnings, shortWindowWarnings } from './rule-warnings.js';
import type { EventRule, Policy } from './schema.js';

export type PolicyWarning = { code: string; where: string; message: string };

/** A value no real id or name holds: a glob that matches it matches anything. */
const ANYTHING = '\u0000anything';

const matchesAnything = (globs: readonly string[]) => globs.some((glob) => globMatch(glob, ANYTHING));

/** The request fields that choose what a mutation touches, per action. */
const TARGET_FIELDS: Record<string, readonly string[]> = {
  approve_phase: ['triggerId', 'phaseId'],
  disable_groups: ['experimentId', 'groupNames'],
  archive_config: ['configId'],
};

const PLACEHOLDER = /\{([A-Za-z0-9_.-]+)\}/g;

function placeholders(value: unknown): string[] {
  const texts = Array.isArray(value) ? value : [value];
  return texts.flatMap((text) =>
    typeof text === 'string' ? [...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string) : [],
  );
}

function approvalWarnings(policy: Policy): PolicyWarning[] {
  const warnings: PolicyWarning[] = [];
  const eventRequesters = [
    `events:${ANYTHING}`,
    ...policy.sweeper.eventRules.map((rule) => `events:${rule.name}`),
  ];
  for (const rule of policy.approvals.rules) {
    if (rule.decision !== 'approve') continue;
    const where = `approvals.rules "${rule.name}"`;
    if (rule.maxPerHour === undefined) {
      warnings.push({
        code: 'approve-without-cap',
        where,
        message:
          'approves without maxPerHour: a burst of requests is approved as fast as the platform allows',
      });
    }
    const fromEvents = rule.when.requesters.some((glob) => eventRequesters.some((r) => globMatch(glob, r)));
    if (!fromEvents) continue;
    const anyEventRule = rule.when.requesters.find((glob) => globMatch(glob, `events:${ANYTHING}`));
    if (anyEventRule !== undefined) {
      warnings.push({
        code: 'events-any-rule',
        where,
        message: `requester "${anyEventRule}" lets every event rule approve, also rules added later: name them ("events:<rule name>")`,
      });
    }
    if (matchesAnything(rule.when.phases)) {
      warnings.push({
        code: 'events-any-phase',
        where,
        message: `logged events (untrusted: any client SDK can write one) may approve any phase${matchesAnything(rule.when.triggers) ? ' of any trigger' : ''}: list the phases in when.phases`,
      });
    }
  }
  return warnings;
}

/**
 * The other mutations an event rule can queue: `actions.<action>.requesters` alone allows them
 * (no window, no question), so a glob there that takes every event rule is as wide as one in an
 * approval rule.
 */
function actionWarnings(policy: Policy): PolicyWarning[] {
  return (['disable_groups', 'archive_config'] as const).flatMap((action) => {
    const glob = policy.actions[action]?.requesters.find((g) => globMatch(g, `events:${ANYTHING}`));
    if (glob === undefined) return [];
    return [
      {
        code: 'events-any-rule',
        where: `actions.${action}`,
        message: `requester "${glob}" lets every event rule ${action.replace('_', ' ')} (logged events are untrusted), also rules added later: name them ("events:<rule name>")`,
      },
    ];
  });
}

/** What each target field names, and for approvals the approval rule's list that names it too. */
const TARGET_NOUNS: Record<string, string> = {
  triggerId: 'trigger',
  phaseId: 'phase',
  experimentId: 'experiment',
  groupNames: 'group',
  configId: 'config',
};
const APPROVAL_LISTS: Record<string, 'triggers' | 'phases'> = { triggerId: 'triggers', phaseId: 'phases' };

/**
 * The approve rules that would approve `field` of an event rule's request for any value a glob
 * admits (a `*` in their list), or undefined when the action has no such list (only `requesters`
 * allow disable_groups and archive_config): then nothing but the event's own match narrows it.
 */
function openApprovals(policy: Policy, rule: EventRule, field: string): string[] | undefined {
  const list = rule.enqueue?.action === 'approve_phase' ? APPROVAL_LISTS[field] : undefined;
  if (list === undefined) return undefined;
  return policy.approvals.rules
    .filter(
      (approval) =>
        approval.decision === 'approve' &&
        approval.when.requesters.some((glob) => globMatch(glob, `events:${rule.name}`)) &&
        approval.when[list].some((glob) => glob.includes('*')),
    )
    .map((approval) => approval.name);
}

/**
 * A target id the event chooses within a glob: every id the glob admits passes (`trg_*` admits
 * every trigger, since all ids share the prefix), and the field is written by a client, so a match
 * never proves which target was meant. Only a list that names targets constrains it: the approval
 * rule's own `triggers`/`phases`, or an exact id in `match`.
 */
function globOnlyWarning(
  policy: Policy,
  rule: EventRule,
  field: string,
  path: string,
  glob: string,
): PolicyWarning | undefined {
  const open = openApprovals(policy, rule, field);
  if (open?.length === 0) return undefined;
  const noun = TARGET_NOUNS[field] ?? 'target';
  const chosen = `${field} comes from the event's {${path}}, matched only by "${glob}": whoever logs the event picks the ${noun} among every id the glob admits (a prefix all ids share constrains nothing)`;
  const list = APPROVAL_LISTS[field];
  return {
    code: 'template-glob-only',
    where: `sweeper.eventRules "${rule.name}"`,
    message:
      open === undefined || list === undefined
        ? `${chosen}, and nothing else narrows ${rule.enqueue?.action}: match the exact ids`
        : `${chosen}, and ${open.map((name) => `approvals.rules "${name}"`).join(', ')} approves any of them: name the ${noun}s in its when.${list}, the list that constrains what events approve`,
  };
}

/** Every placeholder in every string of a template (also inside arrays and objects), as filled. */
function allPlaceholders(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(allPlaceholders);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(allPlaceholders);
  return placeholders(value);
}

/**
 * A placeholder that names no event field (`{meta.triggerID}`, `{metadata}`: an object) is never
 * filled: every event the rule matches is skipped at run time, and the schema cannot tell.
 */
function unknownFieldWarnings(rule: EventRule): PolicyWarning[] {
  const unknown = new Set(allPlaceholders(rule.enqueue).filter((path) => !EVENT_PATH.test(path)));
  return [...unknown].map((path) => ({
    code: 'template-unknown-field',
    where: `sweeper.eventRules "${rule.name}"`,
    message: `{${path}} names no event field (name, value, source, userID, timestamp, metadata.<key>[.<key>…]): it is never filled, so every event this rule matches is skipped`,
  }));
}

function templateWarnings(policy: Policy, rule: EventRule): PolicyWarning[] {
  if (!rule.enqueue) return [];
  const template = rule.enqueue as Record<string, unknown>;
  const warnings: PolicyWarning[] = unknownFieldWarnings(rule);
  for (const field of TARGET_FIELDS[rule.enqueue.action] ?? []) {
    for (const path of placeholders(template[field])) {
      if (!EVENT_PATH.test(path)) continue; // never filled: warned above
      // Own keys only: `{constructor}` must not find Object.prototype's function (check crashed).
      const constraint = Object.hasOwn(rule.match, path) ? rule.match[path] : undefined;
      if (constraint !== undefined && !globMatch(constraint, ANYTHING)) {
        const warning = constraint.includes('*')
          ? globOnlyWarning(policy, rule, field, path, constraint)
          : undefined;
        if (warning) warnings.push(warning);
        continue;
      }
      warnings.push({
        code: 'template-unconstrained',
        where: `sweeper.eventRules "${rule.name}"`,
        message: `${field} comes from the event's {${path}} with no constraint in match: whoever logs the event chooses the target; add "${path}": "<glob>" to match`,
      });
    }
  }
  return warnings;
}

/** A grant under a key Slack never sends as a person's id (`u0admin`, a user group): it grants nobody. */
function grantWarnings(policy: Policy): PolicyWarning[] {
  return Object.keys(policy.chat.grants).flatMap((key) => {
    const message = grantKeyWarning(key);
    return message === undefined
      ? []
      : [{ code: 'grant-key-never-matches', where: `chat.grants "${key}"`, message }];
  });
}

export function policyWarnings(policy: Policy): PolicyWarning[] {
  return [
    ...shadowedRuleWarnings(policy),
    ...shortWindowWarnings(policy),
    ...approvalWarnings(policy),
    ...actionWarnings(policy),
    ...deadRequesterWarnings(policy),
    ...policy.sweeper.eventRules.flatMap((rule) => templateWarnings(policy, rule)),
    ...grantWarnings(policy),
    ...(policy.notifications.slackWebhookUrl
      ? [
          {
            code: 'webhook-url-in-policy',
            where: 'notifications.slackWebhookUrl',
            message:
              'is a credential committed to git and bundled into every function: put it in the secret as "slackWebhookUrl" and remove it here',
          },
        ]
      : []),
  ];
}
