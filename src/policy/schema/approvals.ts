/**
 * The `approvals` section of the policy schema: approval rules with their windows, freezes, how
 * long to defer. Rule names must be unique (they name rate counters), and a window starts at
 * 00:00–23:59 and ends at 00:00–24:00.
 */
import '../../util/zod-locale.js';
import * as z from 'zod/mini';
import { described, type Primitives, withJsonSchema } from './primitives.js';

function buildWindow() {
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
  return described(
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
}

/** The fields that only an `approve` rule acts on: a `deny` or `ask` rule decides at once, at any time. */
const APPROVE_ONLY = ['windows', 'outsideWindows', 'maxPerHour'] as const;

function buildApprovalRule({ GlobList }: Primitives, WindowSchema: ReturnType<typeof buildWindow>) {
  const rule = z.strictObject({
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
    // Not a zod default: that would be filled in on every rule before the check below, which
    // could then not tell a deny rule's stray `outsideWindows` from one nobody wrote. Absent: defer.
    outsideWindows: z.optional(z.enum(['defer', 'deny'])).register(z.globalRegistry, {
      default: 'defer',
      description: 'outside the windows: wait for the next window (at most maxDeferHours) or deny',
    }),
    maxPerHour: described(
      z.optional(z.number().check(z.int(), z.positive())),
      'approvals by this rule per clock hour; more wait for the next hour',
    ),
  });
  const checked = rule.check(
    z.superRefine((value, ctx) => {
      if (value.decision === 'approve') {
        // Without windows an approve rule approves at any time: outsideWindows would be ignored
        // ("deny" written for office hours whose windows were forgotten would keep nothing out).
        if (value.outsideWindows !== undefined && value.windows === undefined) {
          ctx.addIssue({
            code: 'custom',
            message:
              'outsideWindows acts only beside windows: this rule has none, so it approves at any time and outsideWindows would be ignored; ' +
              'add the windows it is meant for, or remove outsideWindows',
            path: ['outsideWindows'],
          });
        }
        return;
      }
      // Strict objects refuse a misspelt key; this refuses a key the rule would silently ignore
      // (a "deny on Friday afternoons" rule with windows would otherwise deny at every hour).
      for (const field of APPROVE_ONLY) {
        if (value[field] === undefined) continue;
        ctx.addIssue({
          code: 'custom',
          message:
            `only an "approve" rule has ${field}: a "${value.decision}" rule decides at any time, so it would be ignored; ` +
            'to keep approvals out of some hours, give the approve rule windows that leave them out',
          path: [field],
        });
      }
    }),
  );
  // The same rules for editors: only an approve rule has windows, outsideWindows or maxPerHour,
  // and outsideWindows only beside windows.
  return withJsonSchema(checked, {
    dependentRequired: { outsideWindows: ['windows'] },
    anyOf: [
      { type: 'object', properties: { decision: { const: 'approve' } } },
      {
        not: {
          anyOf: APPROVE_ONLY.map((field) => ({
            type: 'object',
            properties: { [field]: {} },
            required: [field],
          })),
        },
      },
    ],
  });
}

function buildFreeze() {
  // zod's own message ("Invalid ISO datetime") does not say what is missing; `--at` and test cases take minutes alone.
  const instant = () =>
    z.iso.datetime({
      offset: true,
      error: 'expected an ISO 8601 instant with seconds and an offset, e.g. 2026-12-20T00:00:00+01:00',
    });
  return described(
    z
      .strictObject({
        name: described(z.string().check(z.minLength(1)), 'shown as the rule of every denial it causes'),
        start: described(instant(), 'ISO 8601 instant with an offset (inclusive)'),
        end: described(instant(), 'ISO 8601 instant with an offset (exclusive)'),
      })
      .check(
        z.refine((f) => Date.parse(f.start) < Date.parse(f.end), {
          message: 'a freeze must end after it starts',
          path: ['end'],
        }),
      ),
    'nothing is approved, archived or disabled from start (inclusive) to end (exclusive)',
  );
}

export function buildApprovalsSchemas(primitives: Primitives) {
  const window = buildWindow();
  const approvalRule = buildApprovalRule(primitives, window);
  const freeze = buildFreeze();
  const approvals = described(
    z._default(
      z
        .strictObject({
          rules: described(z._default(z.array(approvalRule), []), 'first match wins'),
          freezes: described(z._default(z.array(freeze), []), 'no approval while a freeze is in force'),
          maxDeferHours: described(
            z._default(z.number().check(z.positive(), z.lte(24 * 14)), 72),
            'a request older than this (from requestedAt) is denied instead of deferred',
          ),
          otherwise: described(z._default(z.enum(['deny']), 'deny'), 'what no rule allows is denied'),
        })
        .check(
          z.superRefine((section, ctx) => {
            // Names identify rules in decisions, audit records and rate counters: two alike would share a limit.
            const seen = new Set<string>();
            section.rules.forEach((rule, index) => {
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
  );
  return { window, approvalRule, freeze, approvals };
}
