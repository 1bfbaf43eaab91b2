/**
 * The policy file: who may have which mutation, when. Validated with zod at cold start; a
 * JSON Schema for editors is generated from this file (`npm run policy:schema`). The
 * contract is in DESIGN.md ("Policy file"): extend it, never rename it.
 * The sections that decide (approvals, actions, chat) are strict: a misspelt key such as
 * `outsideWindow` is an error at start, not a silent default. Rule names must be unique
 * (they name rate counters), and a window starts at 00:00–23:59 and ends at 00:00–24:00.
 */
import { z } from 'zod';
import { ACTION_NAMES } from '../actions/request.js';

const Glob = z
  .string()
  .min(1)
  .max(200)
  .describe('`*` matches any run of characters; anything else matches itself');
const GlobList = z.array(Glob).min(1);
const Day = z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
const StartTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a time of day as HH:MM (24-hour, 00:00 to 23:59)');
const EndTime = z
  .string()
  .regex(
    /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/,
    'expected a time of day as HH:MM (24-hour; 24:00 is the end of the day)',
  );

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const WindowSchema = z
  .strictObject({
    days: z.array(Day).min(1).describe('the days a window starts on'),
    start: StartTime,
    end: EndTime.describe(
      '24:00 is the end of the day; an end before the start crosses midnight (22:00–06:00)',
    ),
  })
  .refine((w) => w.start !== w.end, {
    message: 'a window must not start and end at the same time',
  })
  .describe("wall-clock time in the policy's time zone, daylight-saving changes included");

export const ApprovalRuleSchema = z.strictObject({
  name: z.string().min(1).max(200).describe('unique; shown in every decision it makes'),
  when: z.strictObject({
    requesters: GlobList.default(['*']).describe('`source:id` globs: `ci:*`, `slack:U123`, `events:*`'),
    triggers: GlobList.default(['*']),
    phases: GlobList.default(['*']),
  }),
  decision: z
    .enum(['approve', 'deny', 'ask'])
    .describe('approve; deny; ask: post Approve/Deny buttons for a person with the approve_phase grant'),
  windows: z
    .array(WindowSchema)
    .min(1)
    .optional()
    .describe('when an `approve` rule may approve; none: at any time'),
  outsideWindows: z
    .enum(['defer', 'deny'])
    .default('defer')
    .describe('outside the windows: wait for the next window (at most maxDeferHours) or deny'),
  maxPerHour: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('approvals by this rule per clock hour; more wait for the next hour'),
});

export const FreezeSchema = z
  .strictObject({
    name: z.string().min(1),
    start: z.iso.datetime({ offset: true }),
    end: z.iso.datetime({ offset: true }),
  })
  .refine((f) => Date.parse(f.start) < Date.parse(f.end), {
    message: 'a freeze must end after it starts',
    path: ['end'],
  })
  .describe('nothing is approved, archived or disabled from start (inclusive) to end (exclusive)');

const ActionPolicySchema = z.strictObject({
  requesters: z
    .array(Glob)
    .default([])
    .describe('`source:id` globs allowed to ask for this action; none: nobody'),
  maxPerDay: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("per calendar day in the policy's time zone; more wait for the next day"),
});

export const EventMatchSchema = z.record(z.string().min(1), z.string());

export const EventRuleSchema = z
  .object({
    name: z.string().min(1).max(200),
    match: EventMatchSchema,
    enqueue: z.record(z.string(), z.unknown()).optional(),
    notify: z.boolean().optional(),
  })
  .refine((r) => r.enqueue !== undefined || r.notify === true, {
    message: 'an event rule must enqueue an action or notify',
  });

export const StaleConfigsSchema = z.object({
  configs: z.array(z.string().min(1)).default([]),
  discover: z.boolean().default(false),
  exposureEvents: z
    .array(z.object({ name: Glob, configIdFrom: z.string().min(1) }))
    .default([{ name: 'config_exposure', configIdFrom: 'metadata.config' }]),
  staleAfterDays: z.number().int().positive().default(30),
  graceDays: z.number().int().nonnegative().default(30),
  maxPerRun: z.number().int().positive().default(5),
  forceArchive: z.boolean().default(false),
  reason: z.string().min(1).default('No exposures for {days} days; archived by console-autopilot'),
  dryRun: z.boolean().default(true),
});

export const PolicySchema = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1),
    timezone: z
      .string()
      .refine(isTimeZone, { message: 'expected an IANA time zone such as Europe/Berlin' })
      .default('UTC')
      .describe('IANA time zone of windows and daily limits, e.g. Europe/Berlin'),
    approvals: z
      .strictObject({
        rules: z.array(ApprovalRuleSchema).default([]).describe('first match wins'),
        freezes: z.array(FreezeSchema).default([]),
        maxDeferHours: z
          .number()
          .positive()
          .max(24 * 14)
          .default(72)
          .describe('a request older than this (from requestedAt) is denied instead of deferred'),
        otherwise: z.enum(['deny']).default('deny').describe('what no rule allows is denied'),
      })
      .superRefine((approvals, ctx) => {
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
      })
      .default({ rules: [], freezes: [], maxDeferHours: 72, otherwise: 'deny' }),
    actions: z
      .strictObject({
        disable_groups: ActionPolicySchema.optional(),
        archive_config: ActionPolicySchema.extend({
          protect: z
            .array(Glob)
            .default([])
            .describe('config id globs that are never archived, by anyone, even with force'),
        }).optional(),
      })
      .default({}),
    chat: z
      .strictObject({
        teams: z.array(z.string().min(1)).default([]).describe('Slack team ids accepted; none: no one'),
        grants: z
          .record(z.string().min(1), z.array(z.enum([...ACTION_NAMES, 'pause'])))
          .default({})
          .describe('Slack user id → what that person may decide (overrides rules and vetoes, not freezes)'),
      })
      .default({ teams: [], grants: {} }),
    sweeper: z
      .object({
        eventRules: z.array(EventRuleSchema).default([]),
        staleConfigs: StaleConfigsSchema.optional(),
        /** Override when the platform's page order is known; `auto` detects it from timestamps. */
        eventOrder: z.enum(['auto', 'newest-first', 'oldest-first']).default('auto'),
      })
      .default({ eventRules: [], eventOrder: 'auto' }),
    notifications: z.object({ slackWebhookUrl: z.url().optional() }).default({}),
  })
  .strict();

export type Policy = z.infer<typeof PolicySchema>;
export type PolicyInput = z.input<typeof PolicySchema>;
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;
export type TimeWindow = z.infer<typeof WindowSchema>;
export type Freeze = z.infer<typeof FreezeSchema>;
export type EventRule = z.infer<typeof EventRuleSchema>;
export type StaleConfigsPolicy = z.infer<typeof StaleConfigsSchema>;
export type ChatGrant = Policy['chat']['grants'][string][number];
