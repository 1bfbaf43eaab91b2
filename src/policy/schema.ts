/**
 * The policy file: who may have which mutation, when. Validated with zod (when a function is
 * bundled, and at start wherever the file is not the one the bundle was built with); a
 * JSON Schema for editors is generated from this file (`npm run policy:schema`). The
 * contract is in README ("Policy file"): extend it, never rename it.
 * Every object is strict: a misspelt key such as `outsideWindow` or `dryrun` is an error, not a
 * silent default, and the generated JSON Schema says `additionalProperties: false` alike. Rule names must be unique
 * (they name rate counters), and a window starts at 00:00–23:59 and ends at 00:00–24:00.
 *
 * This module composes the file from its sections (src/policy/schema/: approvals, actions and
 * chat, sweeper, and the primitives they share) and adds the top-level fields.
 *
 * The deployed functions do not build this schema at all: the bundling validates the policy
 * with it and ships the normalized result with its SHA-256 (see src/wiring/policy-file.ts). It is
 * built on first use (`policySchemas()`, one memoized build, ~150 zod objects and ~12 ms at a
 * cold start), by the bundling, the CLI, the local stack, tests, and a Lambda whose policy
 * file is not the one its bundle was built with. Written with `zod/mini` (functions instead
 * of methods) for that last case and for the bundle size: classic zod costs ~40 ms at init
 * (see bench/cold-start.bench.ts). The messages, paths and the generated JSON Schema are the same.
 */
import '../util/zod-locale.js';
import * as z from 'zod/mini';
import { once } from '../util/once.js';
import { buildActionsSchema, buildChatSchema } from './schema/access.js';
import { buildApprovalsSchemas } from './schema/approvals.js';
import { buildPrimitives, described, isTimeZone } from './schema/primitives.js';
import { buildSweeperSchemas } from './schema/sweeper.js';

/**
 * Builds every policy schema. Called once, on first use (`policySchemas()`): never at module
 * load, so that importing the policy code (for its types, `decide`, or the build-validated
 * load) costs no schema construction.
 */
function buildPolicySchemas() {
  const primitives = buildPrimitives();
  const { window, approvalRule, freeze, approvals } = buildApprovalsSchemas(primitives);
  const { eventMatch, eventRule, staleConfigs, sweeper } = buildSweeperSchemas(primitives);

  const PolicySchema = z.strictObject({
    $schema: described(z.optional(z.string()), 'the JSON Schema for editors (./policy.schema.json)'),
    version: described(z.literal(1), 'the policy format version'),
    timezone: described(
      z._default(
        z
          .string()
          .check(z.refine(isTimeZone, { message: 'expected an IANA time zone such as Europe/Berlin' })),
        'UTC',
      ),
      'IANA time zone of windows and daily limits, e.g. Europe/Berlin',
    ),
    approvals,
    actions: buildActionsSchema(primitives),
    chat: buildChatSchema(),
    sweeper,
    notifications: described(
      z._default(
        z.strictObject({
          slackWebhookUrl: described(
            z.optional(z.url()),
            'DEPRECATED: a credential; keep the incoming-webhook URL in the secret (slackWebhookUrl) instead',
          ),
        }),
        {},
      ),
      'where decisions and events are announced',
    ),
  });

  return { policy: PolicySchema, window, approvalRule, freeze, eventMatch, eventRule, staleConfigs };
}

type PolicySchemas = ReturnType<typeof buildPolicySchemas>;
/** The policy schemas, built on the first call and shared afterwards. */
export const policySchemas: () => PolicySchemas = once(buildPolicySchemas);

export type Policy = z.infer<PolicySchemas['policy']>;
export type PolicyInput = z.input<PolicySchemas['policy']>;
export type ApprovalRule = z.infer<PolicySchemas['approvalRule']>;
export type TimeWindow = z.infer<PolicySchemas['window']>;
export type Freeze = z.infer<PolicySchemas['freeze']>;
export type EventRule = z.infer<PolicySchemas['eventRule']>;
export type StaleConfigsPolicy = z.infer<PolicySchemas['staleConfigs']>;
export type ChatGrant = Policy['chat']['grants'][string][number];
