/**
 * Bounding work by the request's deadline, so Slack always gets its answer within three
 * seconds. Work that has not settled by then keeps running in the background; callers say
 * "not confirmed" rather than "failed", because it may still succeed.
 */
import { problem, type SlackReply } from './blocks.js';

export type Settled<T> = { settled: true; value: T } | { settled: true; error: unknown } | { settled: false };

/** The outcome of `work`, whichever it is, as a value (no deadline). */
export function settled<T>(work: Promise<T>): Promise<Settled<T>> {
  return work.then(
    (value): Settled<T> => ({ settled: true, value }),
    (error: unknown): Settled<T> => ({ settled: true, error }),
  );
}

/**
 * The outcome of `work`, or `{ settled: false }` once `deadline` (epoch ms by `now`) has passed;
 * the timer is cleared as soon as the work settles. One promise and one reaction to the work: a
 * race of two promises in an async function made five, each a microtask hop, and this bounds the
 * send and the queued mark of every mutation.
 */
export function settleBy<T>(work: Promise<T>, deadline: number, now: () => number): Promise<Settled<T>> {
  return new Promise<Settled<T>>((resolve) => {
    const timer = setTimeout(() => resolve({ settled: false }), Math.max(0, deadline - now()));
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve({ settled: true, value });
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ settled: true, error });
      },
    );
  });
}

/** What the person is told, and the outcome logged, for one way work falls short. */
export interface Telling {
  text: string;
  outcome: string;
}

export interface ShortAnswer {
  reply: SlackReply;
  outcome: string;
  error?: unknown;
}

/**
 * `settleBy` for work whose shortfall the person is told about: the value, or the answer for
 * work not settled by the deadline (`late`: it may still succeed) or failed (`failed`).
 */
export async function settledOrAnswer<T>(
  work: Promise<T>,
  deadline: number,
  now: () => number,
  tell: { late: Telling; failed: Telling },
): Promise<{ ok: true; value: T } | { ok: false; answer: ShortAnswer }> {
  const done = await settleBy(work, deadline, now);
  if (!done.settled)
    return { ok: false, answer: { reply: problem(tell.late.text), outcome: tell.late.outcome } };
  if ('error' in done) {
    const { text, outcome } = tell.failed;
    return { ok: false, answer: { reply: problem(text), outcome, error: done.error } };
  }
  return { ok: true, value: done.value };
}
