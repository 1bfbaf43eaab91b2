/** Teams (spec 4.8): POST /users/teams. Team names are unique (a duplicate is a 400). */
import type { Hono } from 'hono';
import { badRequest, ok, parseBody } from '../http.js';
import { TeamBody } from '../schemas.js';
import type { Team } from '../types.js';
import type { RouteDeps, SandboxEnv } from './env.js';

export function registerTeams(app: Hono<SandboxEnv>, { state }: RouteDeps) {
  app.post('/users/teams', (c) => {
    const body = parseBody(TeamBody, c.get('body'));
    if (state.teams.has(body.name)) {
      throw badRequest(`A team named ${body.name} already exists.`, [
        { property: 'name', errorMessage: 'is already used by another team' },
      ]);
    }
    const admins = new Set(body.admins);
    const team: Team = {
      ...body,
      members: body.members.map((email) => {
        const local = email.split('@')[0] ?? '';
        const [first = '', last = ''] = local.split(/[._-]/);
        const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
        return {
          email,
          firstName: cap(first),
          lastName: cap(last),
          role: admins.has(email) ? 'admin' : 'member',
        };
      }),
    } as Team;
    state.teams.set(team.name, team);
    return ok(c, 'Team created successfully.', {
      name: team.name,
      members: team.members,
      admins: team.admins,
      defaultGateMetrics: team.defaultGateMetrics,
      defaultExperimentPrimaryMetrics: team.defaultExperimentPrimaryMetrics,
      defaultExperimentSecondaryMetrics: team.defaultExperimentSecondaryMetrics,
      defaultHoldoutMetrics: team.defaultHoldoutMetrics,
      changeTeamConfigs: team.changeTeamConfigs,
      reviewApproval: team.reviewApproval,
      defaultTargetApplications: team.defaultTargetApplications,
    });
  });
}
