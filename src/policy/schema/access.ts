/**
 * The `actions` and `chat` sections of the policy schema: who may ask for disabling groups and
 * archiving configs (and which configs never), and which Slack workspaces and people the slash
 * command answers.
 */
import '../../util/zod-locale.js';
import * as z from 'zod/mini';
import { ACTION_NAMES } from '../../actions/request.js';
import { SLACK_ID, SLACK_TEAM_ID } from '../../slack/ids.js';
import { grantKeyError } from '../grant-keys.js';
import { teamIdError } from '../team-ids.js';
import { described, type Primitives, withJsonSchema } from './primitives.js';

export function buildActionsSchema({ Glob }: Primitives) {
  const actionPolicyShape = {
    requesters: described(
      z._default(z.array(Glob), []),
      '`source:id` globs allowed to ask for this action; none: nobody',
    ),
    maxPerDay: described(
      z.optional(z.number().check(z.int(), z.positive())),
      "per calendar day in the policy's time zone; more wait for the next day",
    ),
  };
  const ActionPolicySchema = z.strictObject(actionPolicyShape);
  return described(
    z._default(
      z.strictObject({
        disable_groups: described(z.optional(ActionPolicySchema), 'who may disable experiment groups'),
        archive_config: described(
          z.optional(
            z.strictObject({
              ...actionPolicyShape,
              protect: described(
                z._default(z.array(Glob), []),
                'config id globs that are never archived, by anyone, even with force',
              ),
            }),
          ),
          'who may archive dynamic configs, and which never',
        ),
      }),
      {},
    ),
    'who may disable groups and archive configs (approvals are decided by approvals.rules)',
  );
}

export function buildChatSchema() {
  return described(
    z._default(
      z.strictObject({
        teams: described(
          z._default(
            z.array(
              // The webhook compares entries, as is, with the team_id Slack sends: any other form lets no one in.
              withJsonSchema(
                z.string().check(
                  z.superRefine((team, ctx) => {
                    const message = teamIdError(team);
                    if (message !== undefined) ctx.addIssue({ code: 'custom', message });
                  }),
                ),
                { pattern: SLACK_TEAM_ID.source },
              ),
            ),
            [],
          ),
          'Slack team ids accepted (T…, as in the workspace URL); none: no one',
        ),
        grants: described(
          z._default(
            withJsonSchema(
              z.record(z.string().check(z.minLength(1)), z.array(z.enum([...ACTION_NAMES, 'pause']))).check(
                z.superRefine((grants, ctx) => {
                  // The webhook matches keys against the user id Slack sends: one that is no such
                  // id (`slack:U0ADMIN`, `<@U0ADMIN>`) would grant nobody, silently.
                  for (const key of Object.keys(grants)) {
                    const message = grantKeyError(key);
                    if (message !== undefined) ctx.addIssue({ code: 'custom', message, path: [key] });
                  }
                }),
              ),
              { propertyNames: { type: 'string', pattern: SLACK_ID.source } },
            ),
            {},
          ),
          'Slack user id → what that person may decide (overrides rules and vetoes, not freezes)',
        ),
      }),
      { teams: [], grants: {} },
    ),
    'the Slack workspaces and people the slash command answers',
  );
}
