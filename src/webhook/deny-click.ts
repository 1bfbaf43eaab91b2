/**
 * A Deny click on an "ask" message: a veto on the question's effect (the worker reads it; the
 * webhook only writes it), and the question looked at by the next tick, which ends it by the veto.
 */
import { vetoKeyFor } from '../policy/veto-key.js';
import { type Click, type InteractionResult, refusal, replaced } from './click.js';
import { settleBy } from './deadline.js';
import { lookAfterVeto, lookAgainNow } from './open-question.js';

/** Deny: a veto on the effect, so automation will not do it (a person with the grant still can). */
export async function deny({
  deps,
  original,
  userId,
  deadline,
  now,
  reply,
  what,
  dryRun,
}: Click): Promise<InteractionResult> {
  const at = new Date(now()).toISOString();
  // First the held question: a Deny after an Approve click answered it is refused (open-question.ts).
  const looked = await lookAgainNow(deps, original.requestId, deadline, now);
  if (looked.ok === false) {
    await reply.send(refusal(looked.message));
    return { outcome: looked.outcome, userId, ...reply.warned() };
  }
  const written = await settleBy(
    deps.writeVeto(vetoKeyFor(deps.policy, original), { by: `slack:${userId}`, at }),
    deadline,
    now,
  );
  if (!written.settled || 'error' in written) {
    await reply.send(
      refusal(`Could not record the denial of ${what}: the state table did not answer. Please try again.`),
    );
    return {
      outcome: written.settled ? 'state_unreachable' : 'state_unconfirmed',
      userId,
      ...(written.settled ? { error: written.error } : {}),
      ...reply.warned(),
    };
  }
  // Again, now that the veto is there: a tick between the first look and the veto re-held it for
  // an hour; an Approve click between them answered it, and the Deny is no denial then.
  // Its mark then stops a copy that decided "approve" before the veto (refused once one executes).
  const again = await lookAfterVeto(deps, original.requestId, `slack:${userId}`, deadline, now);
  if (!again.ok) {
    await reply.send(refusal(again.message));
    const error = again.error !== undefined ? { error: again.error } : {};
    return { outcome: again.outcome, userId, requestId: original.requestId, ...error, ...reply.warned() };
  }
  await reply.send(
    replaced(
      `${dryRun ? '[dry run] ' : ''}Denied by ${userId}`,
      // A dry run's Deny vetoes dry runs only (veto-key.ts): the real change is still free to be decided.
      dryRun
        ? `:no_entry: [dry run] ${what} was *denied* by <@${userId}>. This rehearsal ends here; the real change is not vetoed.`
        : `:no_entry: ${what} was *denied* by <@${userId}>. Automation will not do it.`,
    ),
  );
  return {
    outcome: 'denied',
    userId,
    requestId: original.requestId,
    ...reply.warned(),
  };
}
