/** The sweeper's action requests onto the actions queue, a few at a time, one log line each. */
import type { ActionRequest } from '../actions/request.js';
import type { Logger } from '../observability/logger.js';
import { sendActionRequest } from '../queue/actions-queue.js';
import { forEachBounded } from '../util/pool.js';
import type { SweeperDeps } from './types.js';

export async function sendRequests(
  deps: Pick<SweeperDeps, 'sqs' | 'queueUrl' | 'signer' | 'sendConcurrency'>,
  logger: Logger,
  requests: ActionRequest[],
): Promise<void> {
  await forEachBounded(requests, deps.sendConcurrency ?? 8, async (request) => {
    const messageId = await sendActionRequest(
      deps.sqs,
      deps.queueUrl,
      request,
      deps.signer ? { signer: deps.signer } : {},
    );
    // One line per request: the saved query "one request by id" starts its story here.
    logger.info('action request queued', {
      requestId: request.requestId,
      messageId,
      action: request.action,
      requester: `${request.requestedBy.source}:${request.requestedBy.id}`,
    });
  });
}
