/**
 * What a `chat.teams` entry must be to let a workspace in: the webhook compares each entry, as
 * is, with the `team_id` Slack sends (`T…`, upper-case letters and digits). An entry written as a
 * requester (`slack:T0001`), in lower case or with a stray space matches no workspace, and every
 * chat command from it would be refused while the policy looked fine. Pure: the entry in, words out.
 */
import { SLACK_TEAM_ID } from '../slack/ids.js';

const FORM =
  'a Slack team id (T followed by upper-case letters and digits, as Slack sends it: the T… in https://app.slack.com/client/T…/…)';

/** Why `team` can never match the team id Slack sends, or undefined when it can. */
export function teamIdError(team: string): string | undefined {
  if (SLACK_TEAM_ID.test(team)) return undefined;
  const never = 'as written it lets no workspace in, and every chat command is refused';
  const meant = (/^slack:(.+)$/i.exec(team.trim())?.[1] ?? team).trim().toUpperCase();
  if (meant !== team && SLACK_TEAM_ID.test(meant))
    return `write "${meant}", not "${team}": an entry is ${FORM}; ${never}`;
  const person = /^[UW][A-Z0-9]+$/.test(team) ? ' but a user id (people go in chat.grants)' : '';
  return `"${team}" is not ${FORM}${person}; ${never}`;
}
