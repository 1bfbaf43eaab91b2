/**
 * The policy decision: may this request mutate the Console API now, later, after a person
 * says so, or never? Pure — no I/O, no clock, no randomness: time, the pause flag and a
 * person's veto are passed in, and rate limits come back as a counter for the worker to
 * increment atomically. Every decision names the rule that made it and says why (and, for a
 * deferral or denial, when that could change), in words for a release manager.
 *
 * Precedence (first that applies decides):
 *  1. a freeze in force            → deny    (rule `freeze:<name>`)
 *  2. a protected config (archive) → deny    (rule `protect`; even with force, even for people)
 *  3. the pause flag               → defer ≤ 15 min (rule `pause`)
 *  4. older than maxDeferHours     → deny    (rule `maxDeferHours`, from `requestedAt`)
 *  5. a stale sweep's archive of a config exposed since its judgment, or that the policy no longer
 *     asks the sweep for → deny; while the sweeper's reading is over an hour old → defer 15 min
 *     (rule `sweeper.staleConfigs`; src/policy/stale-sweep.ts)
 *  6. a Slack user's chat grant    → approve (rule `chat grant`; people beat automation and vetoes)
 *  7. a veto on the effect key     → deny    (rule `veto`)
 *  8. the action's rules: approvals first-match with windows and maxPerHour; archive and
 *     disable-groups requesters and maxPerDay; nothing matched → deny (rule `otherwise`).
 */
import type { ActionRequest } from '../actions/request.js';
import { actionTarget } from '../actions/request.js';
import { type Context, decideAction, decideApproval, HOUR } from './action-rules.js';
import { activeFreeze, frozenUntil, protectingGlob } from './rules.js';
import type { ChatGrant, Policy } from './schema.js';
import { exposedSince, sweepAsksAgain } from './stale-sweep.js';
import { formatInstant } from './time-words.js';

export type Outcome = 'approve' | 'deny' | 'ask' | 'defer';

/** The pause flag as read from the state table (structurally `PauseState` of src/state/pause.ts). */
export interface PauseInput {
  paused: boolean;
  by?: string | undefined;
  reason?: string | undefined;
  since?: string | undefined;
}

/** A person's Deny on the request's effect key (the Deny button; stored by src/state/veto.ts). */
export interface Veto {
  by: string;
  /** ISO 8601 time of the click. */
  at: string;
  reason?: string | undefined;
}

export interface DecisionInput {
  request: ActionRequest;
  now: Date;
  pause: PauseInput;
  veto?: Veto | undefined;
  /** For an archive the stale sweep asked for: the config's newest exposure recorded (epoch ms). */
  lastExposure?: number | undefined;
  /** With it: how far the sweeper had read the event log (epoch ms; null: never; undefined: not known). */
  eventsReadUpTo?: number | null | undefined;
}

/**
 * A rate limit the worker enforces: approve only if atomically incrementing `key` keeps it
 * at or below `limit`; otherwise apply `exceeded` (a deferral to `windowEnd`, or a denial).
 */
export interface DecisionCounter {
  key: string;
  limit: number;
  windowStart: Date;
  windowEnd: Date;
  exceeded: Decision;
}

export interface Decision {
  outcome: Outcome;
  /** The rule's name, or a built-in: `freeze:<name>`, `protect`, `pause`, `maxDeferHours`, `sweeper.staleConfigs`, `chat grant`, `veto`, `actions.<action>`, `otherwise`. */
  rule: string;
  /** Why, in words; for a deferral or denial also when it could change. */
  reason: string;
  deferUntil?: Date;
  counter?: DecisionCounter;
  /** Decide, record and reply, but mutate nothing. */
  dryRun: boolean;
}

/** How often a paused request is looked at again (the worker's longest SQS delay). */
export const PAUSE_RECHECK_MS = 15 * 60_000;

/** The chat grants a Slack user holds (none for an unknown user). */
export function chatGrantsFor(policy: Policy, userId: string): ChatGrant[] {
  return Object.hasOwn(policy.chat.grants, userId) ? [...(policy.chat.grants[userId] ?? [])] : [];
}

/** True when commands and button clicks from this Slack workspace are accepted (none unless listed). */
export function isTeamAllowed(policy: Policy, teamId: string): boolean {
  return policy.chat.teams.includes(teamId);
}

/** The instant after which a request is denied instead of deferred: `requestedAt` + `maxDeferHours`. */
export function requestExpiresAt(policy: Policy, request: ActionRequest): Date {
  return new Date(Date.parse(request.requestedAt) + policy.approvals.maxDeferHours * HOUR);
}

/** The dry-run flag: the request's own, or for the sweeper's archives the stale-config policy's. */
export function isDryRun(policy: Policy, request: ActionRequest): boolean {
  if (request.dryRun === true) return true;
  return (
    request.action === 'archive_config' &&
    request.requestedBy.source === 'schedule' &&
    policy.sweeper.staleConfigs?.dryRun === true
  );
}

export type Step = (context: Context, input: DecisionInput) => Decision | undefined;

/** 1. Freezes beat every rule and every person. */
const freeze: Step = ({ policy, now, when, result }) => {
  const active = activeFreeze(policy, now);
  if (!active) return undefined;
  const end = Date.parse(active.end);
  // Freezes that overlap or follow this one keep everything frozen past its own end.
  const until = frozenUntil(policy, now);
  const rest =
    until > end
      ? `freezes overlapping or following it last until ${when(until)}, and nothing is changed before`
      : 'nothing is changed until it ends';
  return result(
    'deny',
    `freeze:${active.name}`,
    `the freeze "${active.name}" is in force (${when(Date.parse(active.start))} – ${when(end)}); ` +
      `${rest}; ask again after ${when(until)}`,
  );
};

/** 2. A protected config is never archived: not by the sweeper, not by a person, not with force. */
const protect: Step = ({ policy, result }, { request }) => {
  if (request.action !== 'archive_config') return undefined;
  const glob = protectingGlob(policy, request.configId);
  if (glob === undefined) return undefined;
  return result(
    'deny',
    'protect',
    `config ${request.configId} is protected by "${glob}" (actions.archive_config.protect) and is never archived${
      request.force ? ', even with force' : ''
    }; remove it from the protect list to archive it`,
  );
};

/**
 * 3. Pause holds everything back until `resume` (the worker holds the request and the release
 * tick sends it back within a minute of resume); `deferUntil` is the latest it is looked at.
 */
const pause: Step = ({ now, when, result }, { pause }) => {
  if (!pause.paused) return undefined;
  const until = now + PAUSE_RECHECK_MS;
  const by = pause.by ? ` by ${pause.by}` : '';
  const since = Date.parse(pause.since ?? '');
  const sinceText = Number.isFinite(since) ? ` since ${when(since)}` : '';
  const why = pause.reason ? ` (“${pause.reason}”)` : '';
  return result(
    'defer',
    'pause',
    // No slash command named: the Slack app's may be other than /autopilot, and only the webhook
    // hears it (per request); the worker that writes this reason cannot know it.
    `automation is paused${by}${sinceText}${why}; held until someone resumes automation (\`resume\`), ` +
      'which lets held requests proceed within a minute',
    { deferUntil: new Date(until) },
  );
};

/** 4. A request that waited too long is stale: the release it was meant for has moved on. */
const expiry: Step = ({ policy, now, expiresAt, when, result }, { request }) => {
  if (now <= expiresAt) return undefined;
  return result('deny', 'maxDeferHours', expiryWords(policy, request, when));
};

/** Why an expired request is denied; also what the release tick says ending a stuck one (src/worker/release.ts). */
export function expiryWords(
  policy: Policy,
  request: ActionRequest,
  when: (instant: number) => string,
): string {
  const requestedAt = Date.parse(request.requestedAt);
  const expiresAt = requestedAt + policy.approvals.maxDeferHours * HOUR;
  return (
    `the request was made ${when(requestedAt)}, more than ${policy.approvals.maxDeferHours} hours ago ` +
    `(approvals.maxDeferHours); it expired ${when(expiresAt)}; ${afterExpiry(request)}`
  );
}

/** What to do about an expired request (the one home of these words: decisions, a wait past the expiry, the tick, a click). */
export function afterExpiry(request: ActionRequest): string {
  return sweepAsksAgain(request) ?? 'send a new request if it is still wanted';
}

/** 6. A person with the grant decides; automation yields to people (also over a veto). */
const chatGrant: Step = ({ policy, result }, { request, veto }) => {
  if (request.requestedBy.source !== 'slack') return undefined;
  const userId = request.requestedBy.id;
  if (!chatGrantsFor(policy, userId).includes(request.action)) return undefined;
  const overrides = veto ? `; this overrides the earlier Deny by ${veto.by}` : '';
  return result(
    'approve',
    'chat grant',
    `Slack user ${userId} holds the chat grant "${request.action}" (chat.grants): a person decided${overrides}`,
  );
};

/** 7. A person's Deny stops automation for this effect. */
const vetoed: Step = ({ when, result }, { request, veto }) => {
  if (!veto) return undefined;
  const at = Date.parse(veto.at);
  const atText = Number.isFinite(at) ? ` at ${when(at)}` : '';
  const why = veto.reason ? ` (“${veto.reason}”)` : '';
  return result(
    'deny',
    'veto',
    `${veto.by} denied ${actionTarget(request)}${atText}${why}; automated requests for it are denied, ` +
      'a person with the chat grant can still approve it',
  );
};

/** Steps 1–7 in precedence order; the first that applies decides. */
const PRECEDENCE: readonly Step[] = [freeze, protect, pause, expiry, exposedSince, chatGrant, vetoed];

/** Decides what happens to `input.request` under `policy` at `input.now`. Never throws for a valid policy and request. */
export function decide(policy: Policy, input: DecisionInput): Decision {
  const { request } = input;
  const now = input.now.getTime();
  const dryRun = isDryRun(policy, request);
  const zone = policy.timezone;
  const when = (instant: number) => formatInstant(instant, zone, Number.isFinite(now) ? now : undefined);
  const result = (
    outcome: Outcome,
    rule: string,
    reason: string,
    extra: Partial<Decision> = {},
  ): Decision => ({
    outcome,
    rule,
    reason,
    ...extra,
    dryRun,
  });

  const requestedAt = Date.parse(request.requestedAt);
  if (!Number.isFinite(now) || !Number.isFinite(requestedAt)) {
    return result(
      'deny',
      'otherwise',
      'the request or the current time is not a valid time; denied to be safe',
    );
  }
  const expiresAt = requestedAt + policy.approvals.maxDeferHours * HOUR;
  const context: Context = {
    policy,
    now,
    requestedAt,
    expiresAt,
    zone,
    when,
    result,
    afterExpiry: afterExpiry(request),
  };
  for (const step of PRECEDENCE) {
    const decision = step(context, input);
    if (decision) return decision;
  }
  // 8. The action's own rules.
  switch (request.action) {
    case 'approve_phase':
      return decideApproval(context, request);
    case 'disable_groups':
    case 'archive_config':
      return decideAction(context, request);
  }
}

const OUTCOME_LABELS: Record<Outcome, string> = {
  approve: 'Approved',
  deny: 'Denied',
  ask: 'Asking a person',
  defer: 'Deferred',
};

/**
 * One paragraph for people (`policy explain`, logs, Slack): outcome, rule, reason, the rate
 * limit that still applies and what happens beyond it, and whether it is a dry run.
 */
export function describeDecision(decision: Decision): string {
  let text = `${OUTCOME_LABELS[decision.outcome]} (rule: ${decision.rule}): ${decision.reason}.`;
  if (decision.deferUntil) text += ` Looked at again at ${decision.deferUntil.toISOString()}.`;
  if (decision.counter) {
    const { counter } = decision;
    text +=
      ` Counts against a limit of ${counter.limit} (counter ${counter.key}, ` +
      `${counter.windowStart.toISOString()} – ${counter.windowEnd.toISOString()}); ` +
      `beyond it: ${OUTCOME_LABELS[counter.exceeded.outcome].toLowerCase()}, ${counter.exceeded.reason}.`;
  }
  if (decision.dryRun) text += ' Dry run: decided and recorded, nothing is changed.';
  return text;
}
