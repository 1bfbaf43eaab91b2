/**
 * A copy of a request that was given up. A give-up writes no final: a later message under the id
 * (a CI job retried after it failed, an operator's `autopilot dlq redrive`) is a new attempt and is
 * decided afresh. But a copy of the request itself (a producer's retried SendMessage) that had never
 * failed before the give-up (so never registered as live: src/state/live-copies.ts), first received
 * after it (behind a backlog), was decided afresh too: it told a second, different end ("Done" after
 * "Gave up …") to people, and a CI gate, that had heard the first.
 *
 * The two are told apart by when the message was sent. `SentTimestamp` is set by SQS, not by the
 * sender (a producer cannot forge it), and both redrives send anew (ours with SendMessage; SQS's
 * own redrive gives a moved message a new enqueue time). A message of the same owner (requester and
 * change) sent no later than the give-up was recorded is a copy of the request that ended: it changes nothing and tells nothing new, and
 * is deleted. Its message id is named on the give-up's record, so that a CI gate waiting on it
 * ends with the give-up (src/cli/wait.ts). Other ends need none of this: they write a final, which
 * every later message under the id replays (the same end, told again: src/worker/replay-end.ts).
 */
import type { SQSRecord } from 'aws-lambda';
import { type RequestOwner, sameOwner } from '../state/audit.js';
import { endsMessageToo, type GivenUpEnd } from '../state/given-up-end.js';
import type { RecordContext, RecordDeps, RecordResult } from './record.js';

/**
 * When SQS accepted the message (epoch ms), if it says. Lambda's SQS events always carry it; with
 * none, the message is taken for a new attempt (decided afresh, as before this check).
 */
export function sentAtMs(record: Pick<SQSRecord, 'attributes'>): number | undefined {
  const sent = Number(record.attributes?.SentTimestamp);
  return Number.isFinite(sent) && sent > 0 ? sent : undefined;
}

/**
 * The message, of a request owned by `owner`, is a copy of the request given up: the same owner (a
 * message under the id from another requester, or for another change, is another request, as the
 * id-taken check reads it: admit.ts), sent before (or as) the give-up was recorded.
 */
export function copyOfGivenUp(
  record: Pick<SQSRecord, 'attributes'>,
  owner: RequestOwner,
  end: GivenUpEnd,
): boolean {
  const sent = sentAtMs(record);
  return sent !== undefined && sent <= end.atMs && sameOwner(end.owner, owner);
}

/**
 * Ends a copy of a given-up request: nothing decided, called or told. A failure to name it on the
 * give-up's record is thrown: the message is retried rather than leave its CI gate waiting.
 */
export async function endCopyOfGivenUp(
  deps: RecordDeps,
  ctx: RecordContext,
  end: GivenUpEnd,
): Promise<RecordResult> {
  const named = await endsMessageToo(deps.table, ctx.request.requestId, end, ctx.record.messageId);
  ctx.log.info('a copy of a request given up before it was received: nothing done, nothing told', {
    result: 'copy-of-ended',
    givenUpAt: new Date(end.atMs).toISOString(),
    sentAt: new Date(Number(ctx.record.attributes.SentTimestamp)).toISOString(),
    ...(named ? {} : { note: 'the give-up record is gone: a CI gate waiting on this message is not ended' }),
  });
  return 'copy-of-ended';
}
