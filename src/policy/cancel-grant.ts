/**
 * Who may cancel a held request. In Slack: a user holding the chat grant for the request's
 * action (as for doing it). From a terminal (`cli:<user>`): whoever the policy would let ask
 * for the same action on the same target as requester `ci:cli:<user>` right now; a freeze does
 * not stop a cancel (cancelling changes nothing on the platform). Pure, like the policy.
 */
import type { ActionRequest } from '../actions/request.js';
import { chatGrantsFor, decide } from './decide.js';
import type { Policy } from './schema.js';

/** True, or why not in words. */
export function mayCancel(policy: Policy, canceller: string, held: ActionRequest, now: Date): true | string {
  const [source, ...rest] = canceller.split(':');
  const id = rest.join(':');
  if (source === 'slack') {
    if (chatGrantsFor(policy, id).includes(held.action)) return true;
    return `you lack the chat grant "${held.action}" (chat.grants), which cancelling this request needs`;
  }
  if (source === 'cli') {
    const { requestId: _id, reply: _reply, ...rest } = held;
    const probe = {
      ...rest,
      requestedBy: { source: 'ci', id: canceller },
      requestedAt: now.toISOString(),
    } as ActionRequest;
    // Decided as if no freeze were in force: a freeze neither stops a cancel nor lets in a user
    // the policy would refuse (its step comes before every rule, so its deny says nothing of them).
    const unfrozen = { ...policy, approvals: { ...policy.approvals, freezes: [] } };
    const decision = decide(unfrozen, { request: probe, now, pause: { paused: false } });
    if (decision.outcome !== 'deny') return true;
    return `the policy denies ${held.action} to ci:${canceller} (rule ${decision.rule}: ${decision.reason}), so it may not cancel it`;
  }
  return `${canceller} may not cancel requests`;
}
