/** Teams (spec 2.11, 4.8): e-mail lists in requests, member objects in responses. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';
import { metricRefSchema } from './common.js';

/**
 * An e-mail address, checked loosely (`local@domain`, no spaces): the platform judges the rest.
 * zod's `email()` refuses valid ones (a punycode top-level domain such as `xn--p1ai`, `&`).
 */
const emailAddress = () =>
  z.string().check(z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an e-mail address'));

export const createTeamSchema = /* @__PURE__ */ once(() => {
  const metricRefs = z.array(z.strictObject({ name: z.string(), type: z.string() }));
  return z.strictObject({
    name: z.string().check(z.minLength(1)),
    members: z.array(emailAddress()),
    admins: z.array(emailAddress()),
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
  });
});
export type CreateTeam = z.input<ReturnType<typeof createTeamSchema>>;

export const teamMemberSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    email: z.nullish(z.string()),
    firstName: z.nullish(z.string()),
    lastName: z.nullish(z.string()),
    role: z.nullish(z.string()),
  }),
);

/** Response form. The spec gives member objects; admins' response form is not shown. */
export const teamSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    name: z.string(),
    members: z.nullish(z.array(teamMemberSchema())),
    admins: z.nullish(z.array(z.union([z.string(), teamMemberSchema()]))),
    defaultGateMetrics: z.nullish(z.array(metricRefSchema())),
    defaultExperimentPrimaryMetrics: z.nullish(z.array(metricRefSchema())),
    defaultExperimentSecondaryMetrics: z.nullish(z.array(metricRefSchema())),
    defaultHoldoutMetrics: z.nullish(z.array(metricRefSchema())),
    defaultTargetApplications: z.nullish(z.array(z.string())),
    changeTeamConfigs: z.nullish(z.string()),
    reviewApproval: z.nullish(z.string()),
    description: z.nullish(z.string()),
    defaultHoldoutID: z.nullish(z.string()),
    requireReviews: z.nullish(z.boolean()),
    requireGateTemplates: z.nullish(z.boolean()),
    requireExperimentTemplates: z.nullish(z.boolean()),
    requireDynamicConfigTemplates: z.nullish(z.boolean()),
  }),
);
export type Team = z.infer<ReturnType<typeof teamSchema>>;
