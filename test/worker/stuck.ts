/**
 * Held requests the release tick lists as *stuck* (their sends never came back), for the tests of
 * how the tick ends them: a CI request held for a window at 10:00 on Monday 2026-11-23, cancelled
 * from Slack or not, and the deployed tick (the worker function's entry) on the bench.
 */
import { expect } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import type { Metrics } from '../../src/observability/metrics.js';
import { mayCancel } from '../../src/policy/cancel-grant.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { Policy } from '../../src/policy/schema.js';
import { holdRequest, listHeld, nextLookText } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { type ReleaseSummary, releaseHeld } from '../../src/worker/release.js';
import { createWorkerEntry, type WorkerDeps } from '../../src/worker/worker.js';
import { lambdaContext } from '../helpers/lambda.js';
import { type Bench, basePolicy } from './fixture.js';
import { releaseDeps } from './questions.js';

/** Who asked and what the hold says; by default ci:deploy on `trg_<requestId>`, outside the office-hours window. */
export interface StuckWait {
  triggerId?: string;
  requesterId?: string;
  rule?: string;
  reason?: string;
}

/** A CI request held for a window at 10:00 on the 23rd (expiring 72 hours later), not yet sent back. */
export async function holdForWindow(bench: Bench, requestId: string, wait: StuckWait = {}): Promise<void> {
  const since = '2026-11-23T10:00:00.000Z';
  const triggerId = wait.triggerId ?? `trg_${requestId}`;
  const requesterId = wait.requesterId ?? 'deploy';
  const request = {
    version: 1,
    action: 'approve_phase',
    triggerId,
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: requesterId },
    requestedAt: since,
    requestId,
  } as const;
  await holdRequest(
    bench.table,
    {
      requestId,
      action: 'approve_phase',
      target: `trigger ${triggerId} phase ph_1`,
      requester: `ci:${requesterId}`,
      why: 'window',
      rule: wait.rule ?? 'CI in office hours',
      reason: wait.reason ?? 'outside the window',
      since,
      nextLook: since,
      request,
    },
    bench.clock.now,
  );
}

/** A CI request held for a window at 10:00 on the 23rd, whose three sends never came back. */
export async function holdStuck(bench: Bench, requestId: string, wait: StuckWait = {}): Promise<void> {
  await holdForWindow(bench, requestId, wait);
  // Three sends that never came back (each dead-lettered, say): the wait is stuck.
  const tick = releaseDeps(bench);
  for (const hhmm of ['10:01', '10:16', '10:31']) await releaseHeld(tick, new Date(`2026-11-23T${hhmm}:00Z`));
  await bench.purge();
  const held = (await listHeld(bench.table)).find((h) => h.requestId === requestId);
  expect(nextLookText(held!)).toContain('stuck');
}

/** U0ADMIN cancels `requestId` from Slack at 11:00, as the webhook does it; the bench policy it was granted by. */
export async function cancelFromSlack(bench: Bench, requestId: string): Promise<Policy> {
  const policy = parsePolicy(basePolicy(bench.slack.origin));
  const at = new Date('2026-11-23T11:00:00Z');
  const cancelled = await heldAccess(bench.table).cancel(
    { requestId, by: 'slack:U0ADMIN', reason: 'clean up', now: at },
    (item) => mayCancel(policy, 'slack:U0ADMIN', item.request, at),
  );
  expect(cancelled).toMatchObject({ ok: true });
  return policy;
}

/**
 * The deployed tick's deps on the bench under `policy` (a silent logger, no metrics): for the tests
 * that swap one of them (a failing queue, a logger or metrics they read) before createWorkerEntry.
 */
export function tickDeps(bench: Bench, policy: Policy): WorkerDeps {
  return {
    policy,
    client: {} as never,
    sqs: bench.queue.sqs,
    table: bench.table,
    queueUrl: bench.queue.queueUrl,
    dlqUrl: bench.emulators.dlqUrl,
    logger: createLogger({ service: 'worker', sink: () => {} }),
    clock: () => bench.clock.now.getTime(),
    slack: { allowedOrigins: [bench.slack.origin] },
    signer: createRequesterSigner(async () => bench.requesterKeys),
  } as WorkerDeps;
}

/** The deployed tick: the worker function's entry with the worker's deps under `policy` (`channelUrl`: the secret's; `logger`: where its lines go). */
export function deployedTick(
  bench: Bench,
  policy: Policy,
  metrics?: Metrics,
  channelUrl?: () => Promise<string | undefined>,
  logger: Logger = createLogger({ service: 'worker', sink: () => {} }),
) {
  return createWorkerEntry({
    ...tickDeps(bench, policy),
    logger,
    ...(metrics ? { metrics } : {}),
    ...(channelUrl ? { channelUrl } : {}),
  });
}

/** The deployed tick under the bench's policy, run once as if at `iso`: its summary. */
export async function deployedTickAt(bench: Bench, iso: string, metrics?: Metrics): Promise<ReleaseSummary> {
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)), metrics);
  return (await tick({ time: iso }, lambdaContext({ timeoutMs: 60_000 }))) as ReleaseSummary;
}
