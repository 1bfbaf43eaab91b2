/**
 * The asked request a person's Approve click answered. The click queues a copy of it as
 * `<asked id>:approved-by:<user>` (src/worker/hold.ts, `answeredQuestion`); the asked request
 * itself stays held until that copy ends, and then ends with it: its own final (so a CI gate's
 * `enqueue --wait`, `why` and any later copy of it see the end), an audit record saying who
 * answered, and a reply to its requester. The channel has heard the copy's outcome already.
 */
import { actionTarget, effectKey, requesterKey } from '../actions/request.js';
import { postToSlack } from '../slack/post.js';
import { recordFinal, writeAudit } from '../state/audit.js';
import { endHold, readHeld } from '../state/held.js';
import { currentDate, type RecordDeps, type Request } from './record.js';
import { type OutcomeReport, outcomeMessage } from './replies.js';

type Ended = Pick<OutcomeReport, 'result' | 'rule' | 'reason' | 'dryRun'>;

export async function endAnsweredQuestion(
  deps: RecordDeps,
  asked: string,
  answer: Request,
  done: Ended,
): Promise<void> {
  const held = await readHeld(deps.table, asked);
  // Not held: it ended already (an earlier answer, a cancel the tick carried out, its expiry).
  // A question about another effect is not this one's to end.
  if (!held || effectKey(held.request) !== effectKey(answer)) return;
  const now = currentDate(deps);
  const reason = `answered by ${requesterKey(answer.requestedBy)} (request ${answer.requestId}): ${done.reason}`;
  const first = await recordFinal(
    deps.table,
    { result: done.result, rule: done.rule, reason, requestId: asked, at: now.toISOString() },
    now,
  );
  await endHold(deps.table, asked);
  if (!first) return;
  const { request } = held;
  await writeAudit(deps.table, {
    requestId: asked,
    at: now,
    action: request.action,
    target: actionTarget(request),
    effectKey: effectKey(request),
    requester: requesterKey(request.requestedBy),
    rule: done.rule,
    reason,
    result: done.result,
    dryRun: done.dryRun,
  });
  const url = request.reply?.slackResponseUrl;
  if (!url || url === answer.reply?.slackResponseUrl) return;
  const message = outcomeMessage({ request, requestId: asked, ...done, reason });
  const posted = await postToSlack(url, message, deps.slack);
  if (!posted.ok) deps.metrics.put('SlackPostsFailed', 1, {}, { requestId: asked });
}
