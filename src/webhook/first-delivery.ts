/**
 * Slack retries (`X-Slack-Retry-Num`) of a command or click: what its first delivery marked in the
 * `queued` family (src/state/queued.ts) once it took effect (a request queued, a switch written, a
 * cancel recorded, a Deny or an Approve taken). One reading for every retried kind: a retry finding
 * its mark is only answered; one finding none, or that cannot tell by the deadline, acts now.
 */
import { settleBy } from './deadline.js';
import type { WebhookDeps } from './deps.js';

/** The mark under `markId`, read by the deadline; undefined when there is none or it could not be read in time. */
export async function firstDeliveryMark(
  deps: Pick<WebhookDeps, 'queued'>,
  markId: string,
  deadline: number,
  now: () => number,
): Promise<string | undefined> {
  const found = await settleBy(deps.queued.find(markId), deadline, now);
  return found.settled && 'value' in found ? found.value : undefined;
}
