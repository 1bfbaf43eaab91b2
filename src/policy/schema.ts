/**
 * The policy file: who may have which mutation, when. Validated with zod (when a function is
 * bundled, and at start wherever the file is not the one the bundle was built with); a
 * JSON Schema for editors is generated from this file (`npm run policy:schema`). The
 * contract is in README ("Policy file"): extend it, never rename it.
 * The sections that decide (approvals, actions, chat) are strict: a misspelt key such as
 * `outsideWindow` is an error, not a silent default. Rule names must be unique
 * (they name rate counters), and a window starts at 00:00–23:59 and ends at 00:00–24:00.
 *
 * The deployed functions do not build this schema at all: the bundling validates the policy
 * with it and ships the normalized result with its SHA-256 (see src/policy/load.ts). It is
 * built on first use (`policySchemas()`, one memoized build, ~150 zod objects and ~12 ms at a
 * cold start), by the bundling, the CLI, the local stack, tests, and a Lambda whose policy
 * file is not the one its bundle was built with. Written with `zod/mini` (functions instead
 * of methods) for that last case and for the bundle size: classic zod costs ~40 ms at init
 * (see bench/cold-start.bench.ts). The messages, paths and the generated JSON Schema are the same.
 */
import '../util/zod-locale.js';
import * as z from 'zod/mini';
import { ACTION_NAMES } from '../actions/request.js';
import { once } from '../util/once.js';

/**
 * A description for the generated JSON Schema, registered on the schema itself: unlike
 * `.check(z.describe(...))` this clones nothing and adds no check, which keeps building the
 * schema short (each zod object built costs); toJSONSchema reads the same registry.
 */
function described<T extends z.ZodMiniType>(schema: T, description: string): T {
  (schema as z.ZodMiniType).register(z.globalRegistry, { description });
  return schema;
}

/**
 * Whether `zone` is an IANA time zone this runtime knows. The canonical names come from
 * `Intl.supportedValuesOf` (a few ms); building a `DateTimeFormat` with a zone loads ICU's
 * zone data (35–60 ms at a cold start), so it is only the fallback for what the list leaves
 * out but Intl accepts: aliases (`UTC`, `Etc/UTC`, `US/Pacific`, `Asia/Kolkata` on older ICU)
 * and other spellings of a case-insensitive name. The answer is the same as the fallback's alone.
 */
let canonicalZones: ReadonlySet<string> | undefined;
function isTimeZone(zone: string): boolean {
  canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (canonicalZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds every policy schema. Called once, on first use (`policySchemas()`): never at module
 * load, so that importing the policy code (for its types, `decide`, or the build-validated
 * load) costs no schema construction.
 */
function buildPolicySchemas() {
  const Glob = described(
    z.string().check(z.minLength(1), z.maxLength(200)),
    '`*` matches any run of characters; anything else matches itself',
  );
  const GlobList = z.array(Glob).check(z.minLength(1));
  const Day = z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
  const StartTime = z
    .string()
    .check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a time of day as HH:MM (24-hour, 00:00 to 23:59)'));
  const EndTime = z
    .string()
    .check(
      z.regex(
        /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/,
        'expected a time of day as HH:MM (24-hour; 24:00 is the end of the day)',
      ),
    );

  const WindowSchema = described(
    z
      .strictObject({
        days: described(z.array(Day).check(z.minLength(1)), 'the days a window starts on'),
        start: StartTime,
        end: described(
          EndTime,
          '24:00 is the end of the day; an end before the start crosses midnight (22:00–06:00)',
        ),
      })
      .check(
        z.refine((w) => w.start !== w.end, {
          message: 'a window must not start and end at the same time',
        }),
      ),
    "wall-clock time in the policy's time zone, daylight-saving changes included",
  );

  const ApprovalRuleSchema = z.strictObject({
    name: described(
      z.string().check(z.minLength(1), z.maxLength(200)),
      'unique; shown in every decision it makes',
    ),
    when: z.strictObject({
      requesters: described(
        z._default(GlobList, ['*']),
        '`source:id` globs: `ci:*`, `slack:U123`, `events:*`',
      ),
      triggers: z._default(GlobList, ['*']),
      phases: z._default(GlobList, ['*']),
    }),
    decision: described(
      z.enum(['approve', 'deny', 'ask']),
      'approve; deny; ask: post Approve/Deny buttons for a person with the approve_phase grant',
    ),
    windows: described(
      z.optional(z.array(WindowSchema).check(z.minLength(1))),
      'when an `approve` rule may approve; none: at any time',
    ),
    outsideWindows: described(
      z._default(z.enum(['defer', 'deny']), 'defer'),
      'outside the windows: wait for the next window (at most maxDeferHours) or deny',
    ),
    maxPerHour: described(
      z.optional(z.number().check(z.int(), z.positive())),
      'approvals by this rule per clock hour; more wait for the next hour',
    ),
  });

  const FreezeSchema = described(
    z
      .strictObject({
        name: z.string().check(z.minLength(1)),
        start: z.iso.datetime({ offset: true }),
        end: z.iso.datetime({ offset: true }),
      })
      .check(
        z.refine((f) => Date.parse(f.start) < Date.parse(f.end), {
          message: 'a freeze must end after it starts',
          path: ['end'],
        }),
      ),
    'nothing is approved, archived or disabled from start (inclusive) to end (exclusive)',
  );

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

  const EventMatchSchema = z.record(z.string().check(z.minLength(1)), z.string());

  const EventRuleSchema = z
    .object({
      name: z.string().check(z.minLength(1), z.maxLength(200)),
      match: EventMatchSchema,
      enqueue: z.optional(z.record(z.string(), z.unknown())),
      notify: z.optional(z.boolean()),
    })
    .check(
      z.refine((r) => r.enqueue !== undefined || r.notify === true, {
        message: 'an event rule must enqueue an action or notify',
      }),
    );

  const StaleConfigsSchema = z.object({
    configs: z._default(z.array(z.string().check(z.minLength(1))), []),
    discover: z._default(z.boolean(), false),
    exposureEvents: z._default(
      z.array(z.object({ name: Glob, configIdFrom: z.string().check(z.minLength(1)) })),
      [{ name: 'config_exposure', configIdFrom: 'metadata.config' }],
    ),
    staleAfterDays: z._default(z.number().check(z.int(), z.positive()), 30),
    graceDays: z._default(z.number().check(z.int(), z.nonnegative()), 30),
    maxPerRun: z._default(z.number().check(z.int(), z.positive()), 5),
    forceArchive: z._default(z.boolean(), false),
    reason: z._default(
      z.string().check(z.minLength(1)),
      'No exposures for {days} days; archived by console-autopilot',
    ),
    dryRun: z._default(z.boolean(), true),
  });

  const PolicySchema = z.strictObject({
    $schema: z.optional(z.string()),
    version: z.literal(1),
    timezone: described(
      z._default(
        z
          .string()
          .check(z.refine(isTimeZone, { message: 'expected an IANA time zone such as Europe/Berlin' })),
        'UTC',
      ),
      'IANA time zone of windows and daily limits, e.g. Europe/Berlin',
    ),
    approvals: z._default(
      z
        .strictObject({
          rules: described(z._default(z.array(ApprovalRuleSchema), []), 'first match wins'),
          freezes: z._default(z.array(FreezeSchema), []),
          maxDeferHours: described(
            z._default(z.number().check(z.positive(), z.lte(24 * 14)), 72),
            'a request older than this (from requestedAt) is denied instead of deferred',
          ),
          otherwise: described(z._default(z.enum(['deny']), 'deny'), 'what no rule allows is denied'),
        })
        .check(
          z.superRefine((approvals, ctx) => {
            // Names identify rules in decisions, audit records and rate counters: two alike would share a limit.
            const seen = new Set<string>();
            approvals.rules.forEach((rule, index) => {
              if (seen.has(rule.name)) {
                ctx.addIssue({
                  code: 'custom',
                  message: `duplicate rule name "${rule.name}"`,
                  path: ['rules', index, 'name'],
                });
              }
              seen.add(rule.name);
            });
          }),
        ),
      { rules: [], freezes: [], maxDeferHours: 72, otherwise: 'deny' },
    ),
    actions: z._default(
      z.strictObject({
        disable_groups: z.optional(ActionPolicySchema),
        archive_config: z.optional(
          z.strictObject({
            ...actionPolicyShape,
            protect: described(
              z._default(z.array(Glob), []),
              'config id globs that are never archived, by anyone, even with force',
            ),
          }),
        ),
      }),
      {},
    ),
    chat: z._default(
      z.strictObject({
        teams: described(
          z._default(z.array(z.string().check(z.minLength(1))), []),
          'Slack team ids accepted; none: no one',
        ),
        grants: described(
          z._default(
            z.record(z.string().check(z.minLength(1)), z.array(z.enum([...ACTION_NAMES, 'pause']))),
            {},
          ),
          'Slack user id → what that person may decide (overrides rules and vetoes, not freezes)',
        ),
      }),
      { teams: [], grants: {} },
    ),
    sweeper: z._default(
      z.object({
        eventRules: z._default(z.array(EventRuleSchema), []),
        staleConfigs: z.optional(StaleConfigsSchema),
        /** Override when the platform's page order is known; `auto` detects it from timestamps. */
        eventOrder: z._default(z.enum(['auto', 'newest-first', 'oldest-first']), 'auto'),
      }),
      { eventRules: [], eventOrder: 'auto' },
    ),
    notifications: z._default(z.object({ slackWebhookUrl: z.optional(z.url()) }), {}),
  });

  return {
    policy: PolicySchema,
    window: WindowSchema,
    approvalRule: ApprovalRuleSchema,
    freeze: FreezeSchema,
    eventMatch: EventMatchSchema,
    eventRule: EventRuleSchema,
    staleConfigs: StaleConfigsSchema,
  };
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
