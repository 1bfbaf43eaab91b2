/**
 * Who may do what from Slack, read from the policy file: only listed workspaces
 * (`chat.teams`); reads for any member of them; each mutation and pause/resume only with a
 * grant in `chat.grants[user]`. A refusal names the grant that is missing.
 */
import { chatGrantsFor, isTeamAllowed } from '../policy/decide.js';
import type { ChatGrant, Policy } from '../policy/schema.js';
import { COMMANDS, type CommandSpec } from './commands.js';

export interface SlackIdentity {
  teamId: string;
  userId: string;
}

export type Authorization =
  | { ok: true }
  | { ok: false; outcome: 'team_refused' | 'grant_missing'; message: string };

export { isTeamAllowed };

/** The user's grants (own properties only, so an id like `__proto__` grants nothing). */
export function grantsFor(policy: Policy, userId: string): readonly ChatGrant[] {
  return chatGrantsFor(policy, userId);
}

/** May `who` use something that needs `grant` (undefined: a read)? */
export function authorize(policy: Policy, who: SlackIdentity, grant: ChatGrant | undefined): Authorization {
  if (!isTeamAllowed(policy, who.teamId)) {
    return {
      ok: false,
      outcome: 'team_refused',
      message:
        'This workspace is not allowed to use console-autopilot (it is not in the policy’s `chat.teams`).',
    };
  }
  if (grant !== undefined && !grantsFor(policy, who.userId).includes(grant)) {
    return {
      ok: false,
      outcome: 'grant_missing',
      message: `You need the \`${grant}\` grant for this (policy \`chat.grants\`). Ask an admin of console-autopilot.`,
    };
  }
  return { ok: true };
}

/** The commands `who` may run, for `help`. */
export function allowedCommands(policy: Policy, who: SlackIdentity): CommandSpec[] {
  return COMMANDS.filter((spec) => authorize(policy, who, spec.grant).ok);
}
