/**
 * How a request rides in Slack's Approve/Deny buttons: as the buttons' value, which Slack limits
 * to 2000 characters. Pure: the worker builds the question with it (src/worker/replies.ts), and
 * `policy replay` measures a recorded request with it (src/policy/ask-channel.ts), since a
 * request that cannot be carried is not asked but denied.
 */
import type { ActionRequest } from '../actions/request.js';

/** base64url(JSON) of a request, as the buttons carry it. */
export function encodeButtonValue(request: ActionRequest): string {
  return Buffer.from(JSON.stringify(request), 'utf8').toString('base64url');
}

/** Slack limits a button's value to 2000 characters. */
export const BUTTON_VALUE_LIMIT = 2000;

/**
 * The request as the buttons carry it: without the reply URL (the human's click brings its
 * own) and, if still too long, with a shortened reason. Undefined when it cannot fit.
 */
export function buttonRequest(request: ActionRequest): ActionRequest | undefined {
  const { reply: _reply, ...rest } = request;
  let candidate = rest as ActionRequest;
  if (encodeButtonValue(candidate).length < BUTTON_VALUE_LIMIT) return candidate;
  if (candidate.reason) {
    // base64 grows 4/3; leave room for the rest of the request.
    const budget =
      Math.floor(((BUTTON_VALUE_LIMIT - 1) * 3) / 4) - JSON.stringify({ ...candidate, reason: '' }).length;
    if (budget > 20) {
      candidate = { ...candidate, reason: `${candidate.reason.slice(0, budget - 3)}...` } as ActionRequest;
      if (encodeButtonValue(candidate).length < BUTTON_VALUE_LIMIT) return candidate;
    }
  }
  return undefined;
}
