/**
 * How a read ends when the platform does not answer well: one overall deadline that aborts every
 * call in flight, and each client failure in words for the person (slow, not found, refused).
 */
import { problem, type SlackReply } from './blocks.js';
import { DeadlineError } from './errors.js';

export type ReadOutcome = {
  reply: SlackReply;
  outcome: 'ok' | 'not_found' | 'slow' | 'platform_error' | 'state_unreachable' | 'state_unconfirmed';
  /**
   * The failure, for the request line (so at warn): on-call reads its cause there (a revoked key,
   * a 5xx, a 429, a hang; WebhookStateUnreachable's runbook for the state table). None for `not_found`.
   */
  error?: unknown;
};

export const SLOW_MESSAGE =
  'The platform is slow to answer right now; nothing was changed. Please try again.';

/** Runs `work` with a signal that aborts at `deadline`; rejects with DeadlineError then. */
export async function withDeadline<T>(
  deadline: number,
  now: () => number,
  work: (signal: AbortSignal) => Promise<T>,
) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        controller.abort(new DeadlineError('read deadline passed'));
        reject(new DeadlineError('read deadline passed'));
      },
      Math.max(0, deadline - now()),
    );
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function isLate(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return error instanceof DeadlineError || name === 'ApiTimeoutError' || name === 'AbortError';
}

/**
 * A read of our own state table (`status`: the pause item) that failed. The platform is not
 * asked at all, so it is not blamed: the person is told what did not answer, as `held` and
 * `why` tell them.
 */
export function describeStateFailure(error: unknown): ReadOutcome {
  // Not `slow` (the platform's, uncounted): the table not answering by the deadline is counted
  // (StateTableUnreachable), as for every other read and write of it the webhook makes.
  if (isLate(error)) {
    return {
      reply: problem('The state table is slow to answer right now; please try again.'),
      outcome: 'state_unconfirmed',
    };
  }
  return {
    reply: problem('The state table cannot be read right now; please try again.'),
    outcome: 'state_unreachable',
    error,
  };
}

function errorStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Turns a client error into words for the person; the client's error tree is matched by name and
 * status. The error stays with a `slow` or `platform_error` outcome: the person's words do not
 * tell a revoked key from a 5xx, nor a 429 from a hang, and on-call reads the cause on the line.
 */
export function describeFailure(error: unknown, what: string): ReadOutcome {
  if (isLate(error)) {
    return { reply: problem(SLOW_MESSAGE), outcome: 'slow', error };
  }
  const status = errorStatus(error);
  if (status === 404) return { reply: problem(`There is no ${what}.`), outcome: 'not_found' };
  if (status === 429) {
    return {
      reply: problem('The platform is busy (rate limited); please try again in a minute.'),
      outcome: 'slow',
      error,
    };
  }
  if (status === 401 || status === 403) {
    return {
      reply: problem('The platform refused console-autopilot’s API key. Please tell the people who run it.'),
      outcome: 'platform_error',
      error,
    };
  }
  if (status === 400) {
    return { reply: problem(`The platform refused to show ${what}.`), outcome: 'platform_error', error };
  }
  return {
    reply: problem('The platform did not answer properly; nothing was changed. Please try again.'),
    outcome: 'platform_error',
    error,
  };
}
