/**
 * The forms of the ids Slack sends, in one place: the webhook refuses a request whose team or user
 * id is not `SLACK_ID` before it looks at anything, and the policy schema refuses a `chat.grants`
 * key that is not one (it could never match the user id the webhook compares grants with), and a
 * `chat.teams` entry that is not `SLACK_TEAM_ID` (Slack sends no other `team_id`).
 */

/** What the webhook accepts as a team or user id (`team_id`, `user_id`, a click's `user.id`). */
export const SLACK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A Slack user id as Slack writes it: `U…` (or `W…` on Enterprise Grid), upper-case letters and digits. */
export const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** A Slack team (workspace) id as Slack sends it in `team_id`: `T…`, upper-case letters and digits. */
export const SLACK_TEAM_ID = /^T[A-Z0-9]+$/;
