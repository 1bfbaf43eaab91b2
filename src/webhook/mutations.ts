/**
 * Mutations from Slack. `approve`, `disable-groups` and `archive` become action requests
 * exactly as README ("Action requests from CI") describes them and go to the actions queue (the worker decides and
 * acts, and posts the outcome to the command's `response_url` while Slack takes posts there:
 * `whereOutcome`); `pause`/`resume` write the
 * pause switch the worker and sweeper read. Either the request is on the queue and the
 * person is told its id, or they are told it is not: nothing is half-done.
 */
import { createHash } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type RequesterSigner, RequesterSignerError } from '../actions/proof.js';
import type { ActionRequest } from '../actions/request.js';
import type { Policy } from '../policy/schema.js';
import { type SendActionOptions, sendActionRequest } from '../queue/actions-queue.js';
import { actionWords, oneLine } from '../slack/mrkdwn.js';
import { allowedSlackUrl } from '../slack/post.js';
import type { PauseState } from '../state/pause.js';
import {
  code,
  contextLine,
  ephemeral,
  escapeMrkdwn,
  inChannel,
  problem,
  type SlackReply,
  section,
} from './blocks.js';
import type { Command } from './commands.js';
import { settleBy } from './deadline.js';
import { whereOutcome } from './where-outcome.js';

export type MutationCommand = Extract<Command, { name: 'approve' | 'disable-groups' | 'archive' }>;

export interface QueueTarget {
  sqs: Pick<SQSClient, 'send'>;
  queueUrl: string;
  /** The webhook's requester signer: the worker accepts `slack` requests only with its proof. */
  signer?: RequesterSigner | undefined;
}

/**
 * A stable id for a verified Slack request: a hash of its raw body, which carries Slack's
 * unique `trigger_id` and stays the same when Slack retries (the retry is re-signed with a new
 * timestamp, so the timestamp is left out). The same id is logged and travels in the message.
 */
export function slackRequestId(body: Uint8Array): string {
  return `slack-${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;
}

/**
 * Keeps a response URL only when the worker will post to it: the same rule (`isAllowedSlackUrl`:
 * Slack's origin, or one of `replyOrigins`, the `SLACK_REPLY_ORIGINS` list the worker is given
 * too). Any other URL would only be refused there, so the request carries no reply address and
 * the person is told where the outcome shows instead (see `whereOutcome`).
 */
export function responseUrlOf(
  value: string | undefined,
  replyOrigins: readonly string[] = [],
): string | undefined {
  if (!value || value.length > 2000) return undefined;
  return allowedSlackUrl(value, replyOrigins)?.toString();
}

export function buildActionRequest(
  command: MutationCommand,
  input: { userId: string; requestId: string; requestedAt: Date; responseUrl?: string | undefined },
): ActionRequest {
  // Built by assignment, not with `{ ...common, … }`: on Node 20 a spread in an object literal
  // goes through the runtime, ~13 µs for this request against 0.1 µs (measured; it is on every
  // queued mutation). Same fields, same order.
  const requestedAt = input.requestedAt.toISOString();
  const common: Pick<ActionRequest, 'version' | 'requestedBy' | 'requestedAt' | 'requestId' | 'reply'> = {
    version: 1,
    requestedBy: { source: 'slack', id: input.userId },
    requestedAt,
    requestId: input.requestId,
  };
  if (input.responseUrl) common.reply = { slackResponseUrl: input.responseUrl, issuedAt: requestedAt };
  switch (command.name) {
    case 'approve': {
      const request: ActionRequest = Object.assign(common, {
        action: 'approve_phase' as const,
        triggerId: command.triggerId,
        phaseId: command.phaseId,
      });
      if (command.reason !== undefined) request.reason = command.reason;
      return request;
    }
    case 'disable-groups':
      return Object.assign(common, {
        action: 'disable_groups' as const,
        experimentId: command.experimentId,
        groupNames: command.groups,
      });
    case 'archive':
      return Object.assign(common, {
        action: 'archive_config' as const,
        configId: command.configId,
        reason: command.reason ?? `Archived from Slack by slack:${input.userId}`,
      });
  }
}

/**
 * Why a request is not on the queue: SQS failed (`queue_unreachable`), did not answer in time
 * (`queue_unconfirmed`: it may be queued), or the webhook could not sign it (`signing_failed`:
 * its requester key unreadable, or not read by the deadline, a secrets problem; nothing was sent).
 */
export type NotQueued = 'queue_unreachable' | 'queue_unconfirmed' | 'signing_failed';

export type EnqueueResult =
  | { ok: true; messageId: string }
  | { ok: false; outcome: NotQueued; error: unknown };

/**
 * Sends the request, waiting no later than `deadline` (epoch ms) so Slack's three seconds are
 * never missed. A failure means it is not queued; a send still running at the deadline cannot
 * be known either way, and says so (the worker's effect keys keep a second try from acting
 * twice). The send is not aborted: cancelling it would not make the outcome any more certain.
 * A signer still running then (its key's secret read hanging) has sent nothing: the send is
 * never started after it, so the person is told for sure that it is not queued.
 */
export async function enqueue(
  target: QueueTarget,
  request: ActionRequest,
  deadline: number,
  now: () => number,
): Promise<EnqueueResult> {
  let phase = 'signing' as 'signing' | 'sending' | 'given up';
  const beforeSend = () => {
    if (phase === 'given up') throw new RequesterSignerError('signed after the deadline: not sent');
    phase = 'sending';
  };
  // No spread (see buildActionRequest): it is on every queued mutation.
  const options: SendActionOptions = { beforeSend };
  if (target.signer) options.signer = target.signer;
  const sent = await settleBy(
    sendActionRequest(target.sqs, target.queueUrl, request, options),
    deadline,
    now,
  );
  if (!sent.settled) {
    if (phase === 'sending') return { ok: false, outcome: 'queue_unconfirmed', error: undefined };
    phase = 'given up';
    const error = new RequesterSignerError(
      `cannot vouch for ${request.requestedBy.source} requests: the requester key was not read by the deadline`,
    );
    return { ok: false, outcome: 'signing_failed', error };
  }
  if ('error' in sent) {
    const signing = sent.error instanceof RequesterSignerError;
    return { ok: false, outcome: signing ? 'signing_failed' : 'queue_unreachable', error: sent.error };
  }
  return { ok: true, messageId: sent.value };
}

/** `policy`: whether the notifications channel is certain here (`whereOutcome`). */
export function queuedReply(
  request: ActionRequest,
  slash: string,
  policy: Pick<Policy, 'notifications'>,
): SlackReply {
  const where = whereOutcome(request, `${slash} why ${request.requestId ?? ''}`, policy);
  // What is queued in `actionWords`, as every other post says it: ids may hold `:`, and bare, an id
  // such as `rel:tada:` showed as an emoji where the person typed an id.
  const what = actionWords(request);
  const text = `Queued: ${what}. Request id ${request.requestId}. ${where.text}`;
  return ephemeral(text, [
    section(`:inbox_tray: *Queued:* ${what}\nRequest id ${code(request.requestId ?? '')} · ${where.mrkdwn}`),
  ]);
}

/**
 * Why a request could not be signed, for the person: no detail (it would be about secrets). True
 * of both causes of `signing_failed`: a read that failed, and one still running at the deadline.
 */
export const SIGNING_FAILED_TEXT =
  'console-autopilot could not sign it (its requester key could not be read in time: the read of its secrets failed or was too slow; the queue was not tried)';
/**
 * Whether trying again helps: a slow read goes on after the answer and caches the key, so the
 * next try on that container is signed; a read that fails again is a problem with the
 * secrets, for an operator.
 */
export const SIGNING_AGAIN_TEXT =
  "it may work then (a read that was only slow goes on after this answer); if it fails again, console-autopilot's secrets need an operator";

export function notQueuedReply(request: ActionRequest, outcome: NotQueued): SlackReply {
  // What was not queued in `actionWords`, as every other reply says it: ids may hold `:`, and
  // bare, an id such as `rel:tada:` showed as an emoji where the person typed an id.
  const what = actionWords(request);
  if (outcome === 'signing_failed')
    return problem(
      `${what} was *not* queued: ${SIGNING_FAILED_TEXT}. Nothing was changed. Try again in a moment: ${SIGNING_AGAIN_TEXT}.`,
    );
  return outcome === 'queue_unreachable'
    ? problem(
        `The actions queue could not be reached, so ${what} was *not* queued. Nothing was changed; please try again.`,
      )
    : problem(
        `The actions queue did not confirm ${what} in time (request id ${request.requestId}). It may or may not be queued; trying again is safe, the worker never applies the same change twice.`,
      );
}

export function retryReply(requestId: string): SlackReply {
  return ephemeral(
    `Slack sent this request again (request id ${requestId}); it was already queued, so it was not queued a second time.`,
  );
}

/** A Slack retry whose first delivery never reached the queue: queued now, with the same id. */
export function queuedOnRetryReply(
  request: ActionRequest,
  slash: string,
  policy: Pick<Policy, 'notifications'>,
): SlackReply {
  const where = whereOutcome(request, `${slash} why ${request.requestId ?? ''}`, policy);
  const what = actionWords(request);
  const text = `Slack sent this request again (request id ${request.requestId}); its first delivery never reached the queue, so it is queued now: ${what}. ${where.text}`;
  return ephemeral(text, [
    section(
      `:inbox_tray: *Queued on Slack's retry:* ${what}\nThe first delivery never reached the queue. Request id ${code(request.requestId ?? '')} · ${where.mrkdwn}`,
    ),
  ]);
}

// The reason is typed text shown to the channel: on one line, invisible characters marked (`oneLine`),
// as the worker shows every reason, so it can neither write a line under ours nor turn ours around.
export function pauseReply(
  paused: boolean,
  userId: string,
  reason: string | undefined,
  /** The pause this one replaced, when it was paused already: its who and why are no longer shown by `status`. */
  replaced?: PauseState,
): SlackReply {
  const earlier = replaced
    ? ` It was already paused${replaced.by ? ` by ${escapeMrkdwn(replaced.by)}` : ''}${replaced.since ? ` since ${replaced.since}` : ''}${replaced.reason ? ` (${escapeMrkdwn(oneLine(replaced.reason))})` : ''}; this pause replaces that one.`
    : '';
  const text = paused
    ? `:double_vertical_bar: <@${userId}> paused console-autopilot${reason ? `: ${escapeMrkdwn(oneLine(reason))}` : ''}. No automated mutation runs until \`resume\`.${earlier}`
    : `:arrow_forward: <@${userId}> resumed console-autopilot. Deferred actions proceed at their next check.`;
  return inChannel(paused ? 'console-autopilot paused' : 'console-autopilot resumed', [section(text)]);
}

/** `resume` while nothing was paused: told to the person only, not to the channel as a resume. */
export function notPausedReply(slash: string): SlackReply {
  const text = 'console-autopilot was not paused, so there was nothing to resume; nothing changed.';
  return ephemeral(text, [
    section(`:arrow_forward: ${text}`),
    contextLine(`${code(`${slash} status`)} shows its state.`),
  ]);
}
