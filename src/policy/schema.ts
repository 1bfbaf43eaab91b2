/**
 * The policy file: who may have which mutation, when. Validated with zod at cold start; a
 * JSON Schema for editors is generated from this file (`npm run policy:schema`). The
 * contract is in DESIGN.md ("Policy file"): extend it, never rename it.
 */
import { z } from 'zod';
import { ACTION_NAMES } from '../actions/request.js';

const Glob = z.string().min(1).max(200);
const GlobList = z.array(Glob).min(1);
const Day = z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
const ClockTime = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'expected a time of day as HH:MM (24-hour)');

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const WindowSchema = z
  .object({ days: z.array(Day).min(1), start: ClockTime, end: ClockTime })
  .refine((w) => w.start !== w.end, { message: 'a window must not start and end at the same time' });

export const ApprovalRuleSchema = z.object({
  name: z.string().min(1).max(200),
  when: z.object({
    requesters: GlobList.default(['*']),
    triggers: GlobList.default(['*']),
    phases: GlobList.default(['*']),
  }),
  decision: z.enum(['approve', 'deny', 'ask']),
  windows: z.array(WindowSchema).optional(),
  outsideWindows: z.enum(['defer', 'deny']).default('defer'),
  maxPerHour: z.number().int().positive().optional(),
});

export const FreezeSchema = z
  .object({
    name: z.string().min(1),
    start: z.iso.datetime({ offset: true }),
    end: z.iso.datetime({ offset: true }),
  })
  .refine((f) => Date.parse(f.start) < Date.parse(f.end), {
    message: 'a freeze must end after it starts',
    path: ['end'],
  });

const ActionPolicySchema = z.object({
  requesters: z.array(Glob).default([]),
  maxPerDay: z.number().int().positive().optional(),
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
      .default('UTC'),
    approvals: z
      .object({
        rules: z.array(ApprovalRuleSchema).default([]),
        freezes: z.array(FreezeSchema).default([]),
        maxDeferHours: z
          .number()
          .positive()
          .max(24 * 14)
          .default(72),
        otherwise: z.enum(['deny']).default('deny'),
      })
      .default({ rules: [], freezes: [], maxDeferHours: 72, otherwise: 'deny' }),
    actions: z
      .object({
        disable_groups: ActionPolicySchema.optional(),
        archive_config: ActionPolicySchema.extend({ protect: z.array(Glob).default([]) }).optional(),
      })
      .default({}),
    chat: z
      .object({
        teams: z.array(z.string().min(1)).default([]),
        grants: z.record(z.string().min(1), z.array(z.enum([...ACTION_NAMES, 'pause']))).default({}),
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
