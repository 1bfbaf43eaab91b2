/** Teams (spec 2.11, 4.8): e-mail lists in requests, member objects in responses. */
import * as z from 'zod/mini';
import { MetricRefSchema } from './common.js';

const metricRefs = z.array(z.strictObject({ name: z.string(), type: z.string() }));

export const CreateTeamSchema = z.lazy(() =>
  z.strictObject({
    name: z.string().check(z.minLength(1)),
    members: z.array(z.email()),
    admins: z.array(z.email()),
    defaultGateMetrics: metricRefs,
    defaultExperimentPrimaryMetrics: metricRefs,
    defaultExperimentSecondaryMetrics: metricRefs,
    defaultHoldoutMetrics: metricRefs,
    defaultTargetApplications: z.array(z.string()),
    changeTeamConfigs: z.enum(['anyone', 'team_only']),
    reviewApproval: z.enum(['anyone', 'team_only', 'admin_only']),
    description: z.optional(z.string()),
    defaultHoldoutID: z.optional(z.nullable(z.string())),
    requireReviews: z.optional(z.nullable(z.boolean())),
    requireGateTemplates: z.optional(z.nullable(z.boolean())),
    requireExperimentTemplates: z.optional(z.nullable(z.boolean())),
    requireDynamicConfigTemplates: z.optional(z.nullable(z.boolean())),
  }),
);
export type CreateTeam = z.input<typeof CreateTeamSchema>;

export const TeamMemberSchema = z.lazy(() =>
  z.looseObject({
    email: z.optional(z.string()),
    firstName: z.optional(z.string()),
    lastName: z.optional(z.string()),
    role: z.optional(z.string()),
  }),
);

/** Response form. The spec gives member objects; admins' response form is not shown. */
export const TeamSchema = z.lazy(() =>
  z.looseObject({
    name: z.string(),
    members: z.optional(z.array(TeamMemberSchema)),
    admins: z.optional(z.array(z.union([z.string(), TeamMemberSchema]))),
    defaultGateMetrics: z.optional(z.array(MetricRefSchema)),
    defaultExperimentPrimaryMetrics: z.optional(z.array(MetricRefSchema)),
    defaultExperimentSecondaryMetrics: z.optional(z.array(MetricRefSchema)),
    defaultHoldoutMetrics: z.optional(z.array(MetricRefSchema)),
    defaultTargetApplications: z.optional(z.array(z.string())),
    changeTeamConfigs: z.optional(z.string()),
    reviewApproval: z.optional(z.string()),
    description: z.optional(z.string()),
    defaultHoldoutID: z.nullish(z.string()),
    requireReviews: z.nullish(z.boolean()),
    requireGateTemplates: z.nullish(z.boolean()),
    requireExperimentTemplates: z.nullish(z.boolean()),
    requireDynamicConfigTemplates: z.nullish(z.boolean()),
  }),
);
export type Team = z.infer<typeof TeamSchema>;
