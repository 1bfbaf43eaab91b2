/**
 * What processing one SQS record works with: its dependencies, the invocation's time, and the
 * request as the steps after validation see it (src/worker/process-record.ts runs them).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { formerClaimIsThisChanges, formerEffectKey } from '../actions/former-effect-key.js';
import type { RequesterSigner } from '../actions/proof.js';
import { type ActionRequest, requestOwner } from '../actions/request.js';
import type { HttpSend } from '../http/send.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { type Decision, type DecisionInput, isDryRun } from '../policy/decide.js';
import type { DecisionInputs } from '../policy/replay.js';
import type { Policy } from '../policy/schema.js';
import { vetoKeysToRead } from '../policy/veto-key.js';
import type { RequestOwner } from '../state/audit.js';
import type { StateTable } from '../state/table.js';
import type { RequesterKeySource } from './admit.js';
import type { MutationClient } from './execute.js';
import type { OutcomeResult } from './replies.js';

export interface RecordDeps {
  policy: Policy;
  /**
   * The policy's short digest (src/policy/digest.ts), written on every decision's audit record and
   * on the held record, so a request held across a redeploy says which policy decided it.
   */
  policyDigest: string;
  decide: (policy: Policy, input: DecisionInput) => Decision;
  client: MutationClient;
  sqs: Pick<SQSClient, 'send'>;
  table: StateTable;
  queueUrl: string;
  dlqUrl: string;
  logger: Logger;
  /** EMF metrics: decisions, mutations sent, held requests, DLQ sends, failed Slack posts. */
  metrics: Metrics;
  /**
   * The worker's one clock (epoch ms, default `Date.now`): the decision time the policy, audit
   * records and replies read, and the time of locks and deadlines. The Console client the
   * worker calls is built on the same clock (src/wiring/from-env.ts), so the deadline the
   * worker hands it and the client's mutation budget read the same time.
   */
  clock: () => number;
  slack: { send?: HttpSend; allowedOrigins: string[]; timeoutMs?: number };
  /** Time kept free at the end of the invocation: no API attempt runs into it. */
  safetyMarginMs: number;
  /** How far an effect lock reaches beyond the invocation's end (a crashed worker's claim frees itself). */
  lockMarginMs: number;
  /**
   * The actions queue's `maxReceiveCount` (src/queue/redrive.ts): a record failing on that receive
   * is moved to the DLQ by SQS, so its people are told it was given up (give-up.ts).
   */
  maxReceiveCount: number;
  /**
   * The first receive's back-off after a 429 (default 15 s, then ×4 a receive: src/worker/defer.ts).
   * The stack keeps the default, which outlasts the platform's 15-min window before the DLQ; a
   * harness that compresses the queue's time (short visibility timeouts: the fault test, chaos)
   * compresses this alike.
   */
  rateLimitBaseSeconds?: number;
  /** Keys that check who vouched for a requester; without them only `ci` requests are proven. */
  requesterKeys?: RequesterKeySource;
  /** Re-signs the copies the worker sends (deferrals) for the signer that vouched for the original. */
  signer?: RequesterSigner;
  /** The notifications channel's incoming-webhook URL (a secret: `slackWebhookUrl`). */
  channelUrl?: () => Promise<string | undefined>;
}

export interface RecordTiming {
  /** Milliseconds left in this invocation (Lambda's `context.getRemainingTimeInMillis`). */
  remainingMs(): number;
}

/** How a record ended, for the handler's summary and for tests. */
export type RecordResult = OutcomeResult | 'dead-lettered' | 'replayed' | 'copy-of-ended';

export type Request = ActionRequest & { requestId: string };

export interface RecordContext {
  record: SQSRecord;
  request: Request;
  key: string;
  log: Logger;
  timing: RecordTiming;
  /** What the policy decided from, for the audit record (`autopilot policy replay`). */
  inputs?: DecisionInputs;
  /** A held record of this request exists (read with its state, or written since): it goes when the request ends. */
  held?: boolean;
  /**
   * Its held item says an attempt for it, or for the Approve click answering it, may have reached
   * the platform, or (not a dry run) its effect's claim does: a denial now must not say the change
   * was not made (replies.ts, `mayHaveBeenDone`).
   */
  reached?: boolean;
  /**
   * The effect's claim under its former key says a call may have reached the platform (a call
   * unanswered before the digest keys' deploy): the claim taken under the current key says so too.
   */
  formerClaimReached?: boolean;
  /** The message was put back for this many seconds (its visibility: defer.ts `putBack`). */
  putBackSeconds?: number;
}

/** Whose request this is, as its final keeps it (a message claiming the id for another is refused). */
export function ownerOf(ctx: Pick<RecordContext, 'request' | 'key'>): RequestOwner {
  return requestOwner(ctx.request, ctx.key);
}

/** The channel's URL: from the secret; the policy's deprecated `notifications.slackWebhookUrl` otherwise. */
export async function notificationsUrl(
  deps: Pick<RecordDeps, 'channelUrl'> & { policy: Pick<RecordDeps['policy'], 'notifications'> },
): Promise<string | undefined> {
  return (await deps.channelUrl?.()) || deps.policy.notifications.slackWebhookUrl;
}

/** The worker's clock as a date, for the policy, audit records and replies. */
export function currentDate(deps: Pick<RecordDeps, 'clock'>): Date {
  return new Date(deps.clock());
}

/** When an effect lock taken now expires: past the invocation's end by the lock margin. */
export function lockExpiry(deps: RecordDeps, timing: RecordTiming): number {
  return deps.clock() + timing.remainingMs() + deps.lockMarginMs;
}

/**
 * What the worker reads with a request's state besides its own items: for a stale sweep's
 * archive the config's last exposure; the keys a veto on it may be under (src/policy/veto-key.ts:
 * a dry run's own, a Deny written under the change's former key).
 */
/** The former key a claim of the change may be under, when it differs (request-state.ts). */
function formerEffect(request: Request, key: string) {
  const former = formerEffectKey(request);
  return former === key ? undefined : { key: former, anyOwner: formerClaimIsThisChanges(request) };
}

export function stateSubject(policy: Policy, request: Request, key: string) {
  const stale = request.action === 'archive_config' && request.requestedBy.source === 'schedule';
  return {
    ...effectSubject(request, key),
    exposureOf: stale ? request.configId : undefined,
    vetoKeys: vetoKeysToRead(request, key, isDryRun(policy, request)),
  };
}

/** The request's own state and its effect's claims, without what only a decision reads (the release tick's look). */
export function effectSubject(request: Request, key: string) {
  return { requestId: request.requestId, effectKey: key, formerEffect: formerEffect(request, key) };
}
