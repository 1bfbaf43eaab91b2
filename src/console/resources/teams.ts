/** Teams: create (spec 4.8). */
import { once } from '../../util/once.js';
import type { RequestOptions } from '../call.js';
import { envelope } from '../schemas/common.js';
import { type CreateTeam, createTeamSchema, type Team, teamSchema } from '../schemas/teams.js';
import { callOrReject, type ResourceContext, validate } from './shared.js';

const teamEnvelope = /* @__PURE__ */ once(() => envelope(teamSchema()));

export function teamsResource({ transport }: ResourceContext) {
  return {
    /**
     * Creates a team. A creating POST: retried only on 429 and failures before sending.
     *
     * @example
     * await client.teams.create({
     *   name: 'Checkout', members: ['a@example.com'], admins: ['a@example.com'],
     *   defaultGateMetrics: [], defaultExperimentPrimaryMetrics: [], defaultExperimentSecondaryMetrics: [],
     *   defaultHoldoutMetrics: [], defaultTargetApplications: [], changeTeamConfigs: 'anyone', reviewApproval: 'anyone',
     * });
     */
    create(body: CreateTeam, options?: RequestOptions): Promise<Team> {
      return callOrReject(() => {
        const valid = validate('teams.create', createTeamSchema(), body);
        return transport.data(
          {
            method: 'POST',
            path: '/console/v1/users/teams',
            body: valid,
            retry: 'create',
            mutation: true,
            schema: teamEnvelope(),
            data: true,
          },
          options,
        );
      });
    },
  };
}
