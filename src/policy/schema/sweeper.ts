/**
 * The `sweeper` section of the policy schema: event rules (what to queue or announce for a
 * logged event), the stale dynamic-config sweep, and the platform's event page order.
 */
import '../../util/zod-locale.js';
import * as z from 'zod/mini';
import { EVENT_PATH } from '../event-paths.js';
import { described, type Primitives, withJsonSchema } from './primitives.js';

/**
 * An event field path the sweeper reads (src/policy/event-paths.ts): a misspelt one would never
 * match (or never record an exposure), silently, so it is refused like a misspelt key.
 */
const EVENT_FIELDS = 'name, source, userID, value, timestamp or metadata.<key>[.<key>…]';

function eventPath() {
  return z.string().check(z.regex(EVENT_PATH, `expected an event field: ${EVENT_FIELDS}`));
}

function buildEventRule() {
  const EventMatchSchema = described(
    // A bad key is reported by the record as "Invalid key in record", not with the key's message.
    z.record(eventPath(), z.string(), {
      error: (issue) =>
        issue.code === 'invalid_key'
          ? `"${String(issue.input)}" is not an event field: expected ${EVENT_FIELDS}`
          : undefined,
    }),
    'event field path (name, value, source, userID, timestamp, metadata.x) → glob; every one must match',
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

  const eventRule = z
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
  // The same rule for editors.
  withJsonSchema(eventRule, {
    anyOf: [
      { type: 'object', properties: { enqueue: {} }, required: ['enqueue'] },
      { type: 'object', required: ['notify'], properties: { notify: { const: true } } },
    ],
  });
  return { eventMatch: EventMatchSchema, eventRule };
}

function buildStaleConfigs({ Glob }: Primitives) {
  return z.strictObject({
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
            configIdFrom: described(eventPath(), 'event field holding the config id'),
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
}

/**
 * A rule's name is its requester (`events:<name>`) and part of every request id it builds
 * (rule name + event id): two rules alike would give different requests one id, and the worker
 * would drop the second as a copy.
 */
function uniqueRuleNames(rules: ReadonlyArray<{ name: string }>, ctx: z.core.$RefinementCtx<unknown>) {
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    if (seen.has(rule.name))
      ctx.addIssue({
        code: 'custom',
        message: `duplicate event rule name "${rule.name}"`,
        path: [index, 'name'],
      });
    seen.add(rule.name);
  });
}

export function buildSweeperSchemas(primitives: Primitives) {
  const { eventMatch, eventRule } = buildEventRule();
  const staleConfigs = buildStaleConfigs(primitives);
  const sweeper = described(
    z._default(
      z.strictObject({
        eventRules: described(
          z._default(z.array(eventRule).check(z.superRefine(uniqueRuleNames)), []),
          'what to do with logged events',
        ),
        staleConfigs: described(z.optional(staleConfigs), 'the stale dynamic-config sweep; none: off'),
        /** Override when the platform's page order is known; `auto` detects it from timestamps. */
        eventOrder: described(
          z._default(z.enum(['auto', 'newest-first', 'oldest-first']), 'auto'),
          "the platform's event page order; auto detects it",
        ),
      }),
      { eventRules: [], eventOrder: 'auto' },
    ),
    'the scheduled sweep: rules for logged events and the stale-config archive',
  );
  return { eventMatch, eventRule, staleConfigs, sweeper };
}
