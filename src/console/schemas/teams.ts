/** Teams (spec 2.11, 4.8): e-mail lists in requests, member objects in responses. */
import { z } from 'zod';
import { MetricRefSchema } from './common.js';

const metricRefs = z.array(z.strictObject({ name: z.string(), type: z.string() }));

export const CreateTeamSchema = z.strictObject({
  name: z.string().min(1),
  members: z.array(z.email()),
  admins: z.array(z.email()),
  defaultGateMetrics: metricRefs,
  defaultExperimentPrimaryMetrics: metricRefs,
  defaultExperimentSecondaryMetrics: metricRefs,
  defaultHoldoutMetrics: metricRefs,
  defaultTargetApplications: z.array(z.string()),
  changeTeamConfigs: z.enum(['anyone', 'team_only']),
  reviewApproval: z.enum(['anyone', 'team_only', 'admin_only']),
  description: z.string().optional(),
  defaultHoldoutID: z.string().nullable().optional(),
  requireReviews: z.boolean().nullable().optional(),
  requireGateTemplates: z.boolean().nullable().optional(),
  requireExperimentTemplates: z.boolean().nullable().optional(),
  requireDynamicConfigTemplates: z.boolean().nullable().optional(),
});
export type CreateTeam = z.input<typeof CreateTeamSchema>;

export const TeamMemberSchema = z.looseObject({
  email: z.string().optional(),
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  role: z.string().optional(),
});

/** Response form. The spec gives member objects; admins' response form is not shown. */
export const TeamSchema = z.looseObject({
  name: z.string(),
  members: z.array(TeamMemberSchema).optional(),
  admins: z.array(z.union([z.string(), TeamMemberSchema])).optional(),
  defaultGateMetrics: z.array(MetricRefSchema).optional(),
  defaultExperimentPrimaryMetrics: z.array(MetricRefSchema).optional(),
  defaultExperimentSecondaryMetrics: z.array(MetricRefSchema).optional(),
  defaultHoldoutMetrics: z.array(MetricRefSchema).optional(),
  defaultTargetApplications: z.array(z.string()).optional(),
  changeTeamConfigs: z.string().optional(),
  reviewApproval: z.string().optional(),
  description: z.string().optional(),
  defaultHoldoutID: z.string().nullish(),
  requireReviews: z.boolean().nullish(),
  requireGateTemplates: z.boolean().nullish(),
  requireExperimentTemplates: z.boolean().nullish(),
  requireDynamicConfigTemplates: z.boolean().nullish(),
});
export type Team = z.infer<typeof TeamSchema>;
