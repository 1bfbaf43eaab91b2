/**
 * Which question an Approve or Deny click answers. A button's value is text: anyone who can
 * post as the app (the notifications webhook URL is enough) could write a message whose text
 * says one thing and whose button carries another request. So a click counts only for a
 * question the worker really asked and that is still open: its held item (src/state/held.ts)
 * waits for an answer, is not cancelled, and is about the same effect as the button. What is
 * queued or vetoed is the held copy of the request, never the button's.
 */
import { type ActionRequest, effectKey } from '../actions/request.js';
import { settleBy } from './deadline.js';
import type { WebhookDeps } from './deps.js';

export type OpenQuestion =
  | { ok: true; request: ActionRequest & { requestId: string } }
  | { ok: false; outcome: string; message: string; error?: unknown };

const CLOSED =
  'This question is no longer open (it was answered, cancelled or has expired), or the button does not match it; nothing was done.';

export async function openQuestion(
  deps: WebhookDeps,
  button: ActionRequest,
  deadline: number,
  now: () => number,
): Promise<OpenQuestion> {
  if (!deps.held || !button.requestId)
    return {
      ok: false,
      outcome: 'question_unknown',
      message: 'This question cannot be checked here; nothing was done.',
    };
  const read = await settleBy(deps.held.read(button.requestId), deadline, now);
  if (!read.settled || 'error' in read) {
    return {
      ok: false,
      outcome: read.settled ? 'state_unreachable' : 'state_unconfirmed',
      message:
        'The state table did not answer, so this click could not be checked; nothing was done. Please try again.',
      ...(read.settled ? { error: read.error } : {}),
    };
  }
  const held = read.value;
  const open = held?.why === 'ask' && !held.cancel && effectKey(held.request) === effectKey(button);
  if (!open) return { ok: false, outcome: 'question_closed', message: CLOSED };
  return { ok: true, request: { ...held.request, requestId: held.requestId } };
}
