/**
 * What a `chat.grants` key must be to grant anyone: the webhook looks grants up by the user id
 * Slack sends (a slash command's `user_id`, a click's `user.id`), as is, after refusing any id
 * that is not `SLACK_ID`. A key that is not such an id can never match (an error, with the fix);
 * one that is, but is not what Slack sends for a person (`U…`/`W…`, upper case), matches no real
 * user (a warning: only a hand-signed request could carry it). Pure: the key in, words out.
 */
import { SLACK_ID, SLACK_USER_ID } from '../slack/ids.js';

const ABOUT = 'a grant is keyed by the Slack user id alone (e.g. U0ADMIN: profile → ⋮ → Copy member ID)';

/** Why `key` can never match the user id the webhook compares grants with, or undefined when it can. */
export function grantKeyError(key: string): string | undefined {
  if (SLACK_ID.test(key)) return undefined;
  const never = 'so it grants nobody';
  const meant = /^slack:(.+)$/.exec(key)?.[1] ?? /^<@([^|>]+)(\|[^>]*)?>$/.exec(key)?.[1] ?? key.trim();
  if (meant !== key && SLACK_ID.test(meant)) {
    // Requesters are `source:id` and Slack writes mentions `<@U…>`; a grant is neither.
    return `write "${meant}", not "${key}": ${ABOUT}, never a requester (slack:…) or a mention, ${never}`;
  }
  if (key.includes('*')) return `a grant key is not a glob: list each person's Slack user id, ${never}`;
  return `is not a Slack user id (letters, digits, _ and -; Slack sends no other): ${ABOUT}, not a name, handle or e-mail address, ${never}`;
}

/** Id prefixes Slack uses for things that are not people, as the words for them. */
const NOT_A_PERSON: Record<string, string> = {
  S: 'a user group id: grants go to people by user id, a group is not expanded',
  T: 'a team id (those go in chat.teams)',
  E: 'an Enterprise Grid id (not a person)',
  C: 'a channel id (not a person)',
  G: 'a channel id (not a person)',
  D: 'a direct-message channel id (not a person)',
  B: 'a bot id (not a person)',
};

/** Why `key`, which the webhook could receive, is no id Slack sends for a person; undefined when it is one. */
export function grantKeyWarning(key: string): string | undefined {
  if (grantKeyError(key) !== undefined || SLACK_USER_ID.test(key)) return undefined;
  const upper = key.toUpperCase();
  const kind = SLACK_USER_ID.test(upper)
    ? `Slack user ids are upper case: write "${upper}"`
    : /^[A-Z][A-Z0-9]{2,}$/.test(key) && NOT_A_PERSON[key[0] as string]
      ? `is ${NOT_A_PERSON[key[0] as string]}`
      : 'does not look like a Slack user id (U… or W…, upper-case letters and digits)';
  return `${kind}; the webhook compares grants with the user id Slack sends, so this key grants nobody. ${ABOUT}`;
}
