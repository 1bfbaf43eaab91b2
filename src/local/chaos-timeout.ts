/**
 * The function timeout, as Lambda enforces it on a chaos invocation: at its deadline the runtime is
 * stopped and nothing of the invocation runs after. In-process its promise cannot be stopped (the
 * event source gives up on it: event-source.ts), so from the deadline on every call it makes
 * (DynamoDB, SQS, Secrets Manager, Console API, Slack) fails at once, the ones in flight included:
 * a request sent before may have landed, its answer is never read. Failing rather than hanging lets
 * the abandoned promise settle, so the event source's `stop()` is not held by it.
 */
import type { Gate } from './chaos-dying.js';

export class InvocationTimedOut extends Error {
  override name = 'InvocationTimedOut';
}

export interface TimeoutGate {
  gate: Gate;
  /** Settles when the deadline passed with the invocation still running (never once `end` was called). */
  timedOut: Promise<void>;
  /** The invocation returned or threw: its deadline no longer matters. */
  end(): void;
}

/** A gate that fails every call from `stopsAt` (epoch ms) on. */
export function timeoutGate(stopsAt: number, now: () => number = Date.now): TimeoutGate {
  const error = () => new InvocationTimedOut('the invocation timed out: Lambda stopped its runtime');
  let stopped = false;
  let markTimedOut: () => void = () => {};
  const timedOut = new Promise<void>((resolve) => {
    markTimedOut = resolve;
  });
  let failInFlight: (e: Error) => void = () => {};
  const atDeadline = new Promise<never>((_, reject) => {
    failInFlight = reject;
  });
  atDeadline.catch(() => undefined);
  const timer = setTimeout(
    () => {
      stopped = true;
      failInFlight(error());
      markTimedOut();
    },
    Math.max(0, stopsAt - now()),
  );
  const gate: Gate = (call) => {
    if (stopped || now() >= stopsAt) return Promise.reject(error());
    return Promise.race([call(), atDeadline]);
  };
  return { gate, timedOut, end: () => clearTimeout(timer) };
}
