/**
 * What `autopilot policy check` warns about in a valid policy: choices that are legal but let
 * untrusted input reach a production mutation. Logged events are written by client SDKs, so
 * anyone holding a client key can log one: an event rule that approves must be narrow (named
 * requester, listed phases, target ids constrained in `match`), and an approval needs a cap.
 * Pure: the policy in, the warnings out.
 */
import { globMatch } from '../util/glob.js';
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

function templateWarnings(rule: EventRule): PolicyWarning[] {
  if (!rule.enqueue) return [];
  const template = rule.enqueue as Record<string, unknown>;
  const warnings: PolicyWarning[] = [];
  for (const field of TARGET_FIELDS[rule.enqueue.action] ?? []) {
    for (const path of placeholders(template[field])) {
      // Own keys only: `{constructor}` must not find Object.prototype's function (check crashed).
      const constraint = Object.hasOwn(rule.match, path) ? rule.match[path] : undefined;
      if (constraint !== undefined && !globMatch(constraint, ANYTHING)) continue;
      warnings.push({
        code: 'template-unconstrained',
        where: `sweeper.eventRules "${rule.name}"`,
        message: `${field} comes from the event's {${path}} with no constraint in match: whoever logs the event chooses the target; add "${path}": "<glob>" to match`,
      });
    }
  }
  return warnings;
}

export function policyWarnings(policy: Policy): PolicyWarning[] {
  return [
    ...approvalWarnings(policy),
    ...actionWarnings(policy),
    ...policy.sweeper.eventRules.flatMap(templateWarnings),
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
