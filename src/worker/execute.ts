/**
 * Carrying out one approved action against the Console API and classifying what came back:
 * done, stale (the platform's 400 says the phase is not current: terminal, never retried), rejected
 * (another 4xx, another 400 included: terminal, with the platform's own words), or transient (429, 5xx, timeouts, connection,
 * a 2xx whose body is not JSON: the record fails so SQS retries it).
 */
import type { ActionRequest } from '../actions/request.js';
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  BadRequestError,
  isTransientError,
  RateLimitError,
  RequestValidationError,
  ResponseValidationError,
} from '../console/errors.js';
import { approveAnswerNote } from './approve-answer.js';
import { withMayHaveReached } from './replies.js';

/** The part of the Console API client the worker mutates with (the client satisfies it). */
export interface MutationClient {
  releasePipelineTriggers: {
    approve(id: string, body: { phaseID: string }, options?: MutationOptions): Promise<unknown>;
  };
  experiments: {
    disableGroups(id: string, body: { group_names: string[] }, options?: MutationOptions): Promise<unknown>;
  };
  dynamicConfigs: {
    archive(
      id: string,
      body: { forceArchive: boolean; archiveReason: string },
      options?: MutationOptions,
    ): Promise<unknown>;
  };
}

export interface MutationOptions {
  deadline?: number;
  signal?: AbortSignal;
}

export type ExecutionResult =
  | { kind: 'done'; result: 'approved' | 'groups-disabled' | 'archived'; reason: string }
  | {
      kind: 'stale';
      reason: string;
      status: number;
      /** An earlier attempt may have approved it (and so moved the trigger past the phase). */
      mayHaveReached: boolean;
    }
  | {
      kind: 'rejected';
      reason: string;
      status: number;
      /** An earlier attempt (of this call, or an earlier call for this effect) may have made the change. */
      mayHaveReached: boolean;
    }
  | {
      kind: 'transient';
      reason: string;
      error: unknown;
      retryAfterMs?: number;
      rateLimited: boolean;
      /** False only when no attempt can have reached the platform (see `mayHaveReached`). */
      mayHaveReached: boolean;
    };

/**
 * What the mutation did, in words. An archive or a group disable answered 2xx after an earlier
 * call for this effect may have reached the platform (a crashed copy's, an unanswered one's) may
 * have changed nothing: the platform answers a repeat 2xx too, and the spec has no GET of a config
 * or an experiment to look first. So it is never told as this call's own change (nor, replayed,
 * as the other request's alone). An approval needs no note: the phaseID guard refuses a repeat.
 */
function doneReason(request: ActionRequest, earlierMayHaveReached: boolean): string {
  const said = changeWords(request);
  return earlierMayHaveReached && request.action !== 'approve_phase'
    ? `${said}${EARLIER_ATTEMPT_MAY_HAVE_DONE}`
    : said;
}

const EARLIER_ATTEMPT_MAY_HAVE_DONE =
  ' (an earlier attempt got no answer, so it may have been that attempt that made this change)';

/**
 * Whether a done end's reason (as stored in its final) says an earlier, unanswered attempt may have
 * made the change: the chaos run's check that a flat "done" was applied reads it (src/local/chaos-effects.ts).
 */
export function doneMayHaveBeenEarlier(reason: string): boolean {
  return reason.includes(EARLIER_ATTEMPT_MAY_HAVE_DONE);
}

function changeWords(request: ActionRequest): string {
  switch (request.action) {
    case 'approve_phase':
      return `phase ${request.phaseId} of trigger ${request.triggerId} approved`;
    case 'disable_groups':
      return `groups ${request.groupNames.join(', ')} of experiment ${request.experimentId} disabled`;
    case 'archive_config':
      return `config ${request.configId} archived`;
  }
}

const DONE_RESULT = {
  approve_phase: 'approved',
  disable_groups: 'groups-disabled',
  archive_config: 'archived',
} as const;

/** The platform's own explanation from an error body (bounded by the client: src/console/error-text.ts), else ours. */
export function platformMessage(error: ApiError): string {
  return error.said ?? `the Console API answered ${error.status}`;
}

/**
 * Whether a failed call may have reached the platform, and so may have changed something.
 * False only when every attempt provably stopped short: the last refused with 429 (rate limits
 * are checked before anything is done) or failed before a byte was sent (a refused connection, a
 * deadline passed while waiting for the mutation budget), and none before it may have reached the
 * platform unanswered (the transport knows every answer: `earlierMayHaveReached`, false after
 * 429s only). Anything else (a timeout in flight, a 5xx, a lost answer) may have. Without the
 * transport's word (a client that does not say), several attempts may have.
 */
export function mayHaveReached(error: unknown): boolean {
  const { attempts, earlierMayHaveReached } = error as { attempts?: number; earlierMayHaveReached?: boolean };
  if (earlierMayHaveReached ?? (attempts ?? 1) > 1) return true;
  if (error instanceof RateLimitError) return false;
  if (error instanceof ApiConnectionError || error instanceof ApiTimeoutError) return error.requestSent;
  return true;
}

/**
 * After a retry the phase may have moved on because of our own earlier attempt whose answer was
 * lost (the approve is a PUT, so it is retried), or because of an earlier delivery's call (a
 * timeout in flight, a 5xx, a crash). Still terminal and never a second approval; the reason says
 * so instead of claiming someone else did it.
 */
function earlierAttemptNote(error: ApiError, earlierMayHaveReached: boolean): string {
  // Not after attempts answered 429 only: a 429 did nothing (the transport knows every answer).
  if (error.earlierMayHaveReached ?? (error.attempts ?? 1) > 1) return OWN_ATTEMPT_MAY_HAVE_APPROVED;
  if (earlierMayHaveReached) return EARLIER_ATTEMPT_MAY_HAVE_APPROVED;
  return '';
}

const OWN_ATTEMPT_MAY_HAVE_APPROVED =
  ' (an earlier attempt of this call got no answer, so it may have been this request that approved it)';
const EARLIER_ATTEMPT_MAY_HAVE_APPROVED =
  ' (an earlier attempt to approve this phase got no answer, so it may have been that attempt that approved it)';

/**
 * Whether a stale end's reason (as stored in its final) says an earlier attempt may have approved
 * the phase: the change may be made, so the CI gate must not read it as a refusal (src/cli/wait.ts).
 */
export function staleMayHaveApproved(reason: string): boolean {
  return reason.includes(OWN_ATTEMPT_MAY_HAVE_APPROVED) || reason.includes(EARLIER_ATTEMPT_MAY_HAVE_APPROVED);
}

/**
 * Whether a 400 to an approve is the phaseID guard, as the platform says it: its field errors name
 * `phaseID`, or its message speaks of the current phase. The spec shows no error conditions, so a
 * 400 is not always that guard (a body refused, a pipeline that will not move now): any other is
 * told as the platform's refusal in its own words, never as "not the trigger's current phase".
 */
function phaseNotCurrent(error: ApiError): boolean {
  if (error.errors?.some((entry) => entry.property === 'phaseID')) return true;
  const message = (error.body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && /\bcurrent phase\b/i.test(message);
}

async function call(client: MutationClient, request: ActionRequest, options: MutationOptions) {
  switch (request.action) {
    case 'approve_phase':
      return client.releasePipelineTriggers.approve(request.triggerId, { phaseID: request.phaseId }, options);
    case 'disable_groups':
      return client.experiments.disableGroups(
        request.experimentId,
        { group_names: request.groupNames },
        options,
      );
    case 'archive_config':
      return client.dynamicConfigs.archive(
        request.configId,
        { forceArchive: request.force ?? false, archiveReason: request.reason },
        options,
      );
  }
}

/** A 2xx answer the client could not read (not JSON, or JSON of another shape), as a result. */
function unreadAnswer(
  error: unknown,
  request: ActionRequest,
  earlierMayHaveReached: boolean,
): ExecutionResult | undefined {
  if (!(error instanceof ResponseValidationError)) return undefined;
  // A 2xx whose body is not JSON at all (a proxy's login page, a web app's index.html, an empty
  // body) is no answer of the platform's: it may never have seen the call, or made the change
  // and the answer was replaced. Unconfirmed, like a lost answer: retried through the queue, the
  // effect marked "may have reached" (an approve then meets the phase guard; an archive or a
  // disable, answered again, ends done "it may have been that attempt"), never told as done.
  if (error.kind === 'not-json') {
    return {
      kind: 'transient',
      reason: `the change is not confirmed: ${error.message}`,
      error,
      rateLimited: false,
      mayHaveReached: true,
    };
  }
  // JSON of another shape with a 2xx: the platform answered that it accepted the mutation.
  if (error.status >= 200 && error.status < 300) {
    return {
      kind: 'done',
      result: DONE_RESULT[request.action],
      reason: `${doneReason(request, earlierMayHaveReached)} (the response did not match the spec: ${error.message})`,
    };
  }
  return undefined;
}

export async function executeAction(
  client: MutationClient,
  request: ActionRequest,
  options: MutationOptions,
  /** An earlier call for this effect (a crashed or unanswered copy) may have reached the platform. */
  earlierMayHaveReached = false,
): Promise<ExecutionResult> {
  try {
    const answer = await call(client, request, options);
    const note = request.action === 'approve_phase' ? approveAnswerNote(answer, request.phaseId) : '';
    return {
      kind: 'done',
      result: DONE_RESULT[request.action],
      reason: doneReason(request, earlierMayHaveReached) + note,
    };
  } catch (error) {
    if (isTransientError(error)) {
      const transient: ExecutionResult = {
        kind: 'transient',
        reason: (error as Error).message,
        error,
        rateLimited: error instanceof RateLimitError,
        mayHaveReached: mayHaveReached(error),
      };
      if (error instanceof RateLimitError && error.retryAfterMs !== undefined)
        transient.retryAfterMs = error.retryAfterMs;
      return transient;
    }
    const unread = unreadAnswer(error, request, earlierMayHaveReached);
    if (unread) return unread;
    // The phaseID guard: approving a phase that is no longer (or not yet) current.
    if (request.action === 'approve_phase' && error instanceof BadRequestError && phaseNotCurrent(error)) {
      const ownEarlierAttempt = earlierAttemptNote(error, earlierMayHaveReached);
      return {
        kind: 'stale',
        status: 400,
        reason: `stale request: ${platformMessage(error)}${ownEarlierAttempt}`,
        mayHaveReached: ownEarlierAttempt !== '',
      };
    }
    if (error instanceof ApiError) {
      // A refusal after an attempt whose answer was lost ("already approved", "already archived",
      // a 404 for a config archived meanwhile) may be the platform answering our own earlier
      // attempt: it is never told as a plain "refused", which reads "not done".
      // Not after attempts answered 429 only: a 429 did nothing, so the refusal is ours to tell.
      const reached = (error.earlierMayHaveReached ?? (error.attempts ?? 1) > 1) || earlierMayHaveReached;
      const said = platformMessage(error);
      return {
        kind: 'rejected',
        status: error.status,
        reason: reached ? withMayHaveReached(said) : said,
        mayHaveReached: reached,
      };
    }
    // Our own request failed the client's schema: retrying cannot help, so it ends here.
    if (error instanceof RequestValidationError) {
      return { kind: 'rejected', status: 0, reason: error.message, mayHaveReached: false };
    }
    // Anything else is unexpected (a bug, an abort): treat it as transient, so the record is
    // retried and, after maxReceiveCount, kept in the DLQ rather than silently ended.
    return {
      kind: 'transient',
      reason: (error as Error).message ?? String(error),
      error,
      rateLimited: false,
      mayHaveReached: true,
    };
  }
}
