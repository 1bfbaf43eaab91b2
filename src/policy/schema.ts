/**
 * The policy file: who may have which mutation, when. Validated with zod (when a function is
 * bundled, and at start wherever the file is not the one the bundle was built with); a
 * JSON Schema for editors is generated from this file (`npm run policy:schema`). The
 * contract is in README ("Policy file"): extend it, never rename it.
 * Every object is strict: a misspelt key such as `outsideWindow` or `dryrun` is an error, not a
 * silent default, and the generated JSON Schema says `additionalProperties: false` alike. Rule names must be unique
 * (they name rate counters), and a window starts at 00:00–23:59 and ends at 00:00–24:00.
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
        start: described(StartTime, 'HH:MM, 00:00–23:59'),
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
    when: described(
      z.strictObject({
        requesters: described(
          z._default(GlobList, ['*']),
          '`source:id` globs: `ci:*`, `slack:U123`, `events:*`',
        ),
        triggers: described(z._default(GlobList, ['*']), 'trigger id globs this rule applies to'),
        phases: described(z._default(GlobList, ['*']), 'phase id globs this rule applies to'),
      }),
      'the approve_phase requests this rule decides: every list must match',
    ),
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
        name: described(z.string().check(z.minLength(1)), 'shown as the rule of every denial it causes'),
        start: described(z.iso.datetime({ offset: true }), 'ISO 8601 instant with an offset (inclusive)'),
        end: described(z.iso.datetime({ offset: true }), 'ISO 8601 instant with an offset (exclusive)'),
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

  const EventMatchSchema = described(
    z.record(z.string().check(z.minLength(1)), z.string()),
    'event field path (name, value, source, userID, metadata.x) → glob; every one must match',
  );

  // Templates: any string may hold `{metadata.x}`-style placeholders filled from the event.
  const Template = described(z.string().check(z.minLength(1)), 'text, or `{event.field}` placeholders');
  const templateReason = described(z.optional(Template), 'the reason the request carries');
  const EnqueueSchema = described(
    z.discriminatedUnion('action', [
      z.strictObject({
        action: z.literal('approve_phase'),
        triggerId: Template,
        phaseId: Template,
        reason: templateReason,
      }),
      z.strictObject({
        action: z.literal('disable_groups'),
        experimentId: Template,
        groupNames: described(z.array(Template).check(z.minLength(1)), 'the group names to disable'),
        reason: templateReason,
      }),
      z.strictObject({
        action: z.literal('archive_config'),
        configId: Template,
        reason: templateReason,
        force: described(z.optional(z.boolean()), 'archive even if the config was exposed recently'),
      }),
    ]),
    'the action request to queue, per action; event fields are untrusted: constrain in `match` what a template takes',
  );

  const EventRuleSchema = z
    .strictObject({
      name: described(
        z.string().check(z.minLength(1), z.maxLength(200)),
        'unique; the requester is events:<name>',
      ),
      match: EventMatchSchema,
      enqueue: z.optional(EnqueueSchema),
      notify: described(z.optional(z.boolean()), 'post a line about the event to the notifications channel'),
    })
    .check(
      z.refine((r) => r.enqueue !== undefined || r.notify === true, {
        message: 'an event rule must enqueue an action or notify',
      }),
    );

  const StaleConfigsSchema = z.strictObject({
    configs: described(
      z._default(z.array(z.string().check(z.minLength(1))), []),
      'config ids to watch (there is no list endpoint)',
    ),
    discover: described(z._default(z.boolean(), false), 'also watch configs seen in exposure events'),
    exposureEvents: described(
      z._default(
        z.array(
          z.strictObject({
            name: described(Glob, 'event name glob'),
            configIdFrom: described(z.string().check(z.minLength(1)), 'event field holding the config id'),
          }),
        ),
        [{ name: 'config_exposure', configIdFrom: 'metadata.config' }],
      ),
      'events that count as a config being used',
    ),
    staleAfterDays: described(
      z._default(z.number().check(z.int(), z.positive()), 30),
      'stale after this many days without an exposure (and that much observation)',
    ),
    graceDays: described(
      z._default(z.number().check(z.int(), z.nonnegative()), 30),
      'days a config must have been watched before it may be archived',
    ),
    maxPerRun: described(
      z._default(z.number().check(z.int(), z.positive()), 5),
      'archives queued per run at most',
    ),
    forceArchive: described(z._default(z.boolean(), false), 'archive with force (even if exposed recently)'),
    reason: described(
      z._default(
        z.string().check(z.minLength(1)),
        'No exposures for {days} days; archived by console-autopilot',
      ),
      'the archive reason; {days} is replaced',
    ),
    dryRun: described(z._default(z.boolean(), true), 'decide and report, but archive nothing'),
  });

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
    approvals: described(
      z._default(
        z
          .strictObject({
            rules: described(z._default(z.array(ApprovalRuleSchema), []), 'first match wins'),
            freezes: described(
              z._default(z.array(FreezeSchema), []),
              'no approval while a freeze is in force',
            ),
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
      'approval of release-pipeline phases: rules, freezes, how long to defer',
    ),
    actions: described(
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
    ),
    chat: described(
      z._default(
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
      'the Slack workspaces and people the slash command answers',
    ),
    sweeper: described(
      z._default(
        z.strictObject({
          eventRules: described(z._default(z.array(EventRuleSchema), []), 'what to do with logged events'),
          staleConfigs: described(
            z.optional(StaleConfigsSchema),
            'the stale dynamic-config sweep; none: off',
          ),
          /** Override when the platform's page order is known; `auto` detects it from timestamps. */
          eventOrder: described(
            z._default(z.enum(['auto', 'newest-first', 'oldest-first']), 'auto'),
            "the platform's event page order; auto detects it",
          ),
        }),
        { eventRules: [], eventOrder: 'auto' },
      ),
      'the scheduled sweep: rules for logged events and the stale-config archive',
    ),
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
