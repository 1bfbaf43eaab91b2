/**
 * The asked request a person's Approve click answered. The click queues a copy of it as
 * `<asked id>:approved-by:<user>` (src/worker/hold.ts, `answeredQuestion`); the asked request
 * itself stays held until that copy ends, and then ends with it: its own final (so a CI gate's
 * `enqueue --wait`, `why` and any later copy of it see the end), an audit record saying who
 * answered, and a reply to its requester. The channel has heard the copy's outcome already.
 */
import { effectKey, requesterKey } from '../actions/request.js';
import { type PostOptions, postToSlack, type SlackMessage } from '../slack/post.js';
import { readHeld } from '../state/held.js';
import { endHeldNow } from './cancel-now.js';
import { currentDate, type RecordDeps, type Request } from './record.js';
import { mayHaveBeenDone, type OutcomeReport } from './replies.js';

type Ended = Pick<OutcomeReport, 'result' | 'rule' | 'reason' | 'dryRun' | 'replayOf'>;

export async function endAnsweredQuestion(
  deps: RecordDeps,
  asked: string,
  answer: Request,
  done: Ended,
  slack: PostOptions = deps.slack,
): Promise<void> {
  const held = await readHeld(deps.table, asked);
  // Not held: it ended already (an earlier answer, a cancel the tick carried out, its expiry).
  // A question about another effect is not this one's to end.
  if (!held || effectKey(held.request) !== effectKey(answer)) return;
  const answeredBy = requesterKey(answer.requestedBy);
  const reason = `answered by ${answeredBy} (request ${answer.requestId}): ${done.reason}`;
  // Its requester only, when not the one the copy's own reply reached.
  const tell = async (urls: string[], message: SlackMessage) => {
    for (const url of urls.filter((u) => u !== answer.reply?.slackResponseUrl)) {
      const posted = await postToSlack(url, message, slack);
      if (posted.ok) continue;
      deps.metrics.put('SlackPostsFailed', 1, {}, { requestId: asked });
      // Under the asked request's id, found with its story; never the URL (it lets anyone post there).
      deps.logger.warn('reply to the answered question not delivered', {
        requestId: asked,
        answeredBy: answer.requestId,
        reason: posted.reason,
        error: posted.error,
        ...(posted.status !== undefined ? { status: posted.status } : {}),
      });
    }
  };
  // Who answered is kept apart from the reason too: the audit record is a person's answer, not a
  // policy decision (`policy replay` counts it as one). The question's own mark: an earlier copy
  // answering it may have made the change.
  // The copy's own executing mark on the question is no refusal (`answering`); another copy's live
  // one is (its approval is being made now, and its outcome is the question's end).
  const ending = { ...done, reason, answeredBy, answering: answer.requestId };
  const end = await endHeldNow(
    deps.table,
    held,
    held.reachedAt ? mayHaveBeenDone(ending) : ending,
    currentDate(deps),
    {
      tell,
      warn: (message, fields) => deps.logger.warn(message, { ...fields, answeredBy: answer.requestId }),
    },
  );
  if (!end.ended && end.executing)
    deps.logger.info(
      'answered question not ended here: another copy of it is making its change now; its outcome ends it',
      {
        requestId: asked,
        answeredBy: answer.requestId,
        result: done.result,
      },
    );
  // Another pass's end of the question, recorded and never told (it died first): told here.
  if (end.retold) {
    const told = end.ended ? ending : end.final;
    deps.logger.info('answered question: told the end another pass recorded and never told (it died first)', {
      requestId: asked,
      answeredBy: answer.requestId,
      result: told?.result,
      rule: told?.rule,
      retold: true,
    });
  }
}
