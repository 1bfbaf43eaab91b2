/**
 * A secret echoed back by a refusing Console API peer, followed through every way out of the
 * worker: the client's error, the platform's words (the reason), the worker's log lines and the
 * outcome posted to the channel. The scrubber tests give the body the peer answers and check
 * what each exit holds (true/false only: a failing assertion must not print a secret).
 */
import { expect } from 'vitest';
import { type ApiError, createConsoleClient } from '../../src/console/index.js';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import { postToSlack } from '../../src/slack/post.js';
import { platformMessage } from '../../src/worker/execute.js';
import { outcomeMessage } from '../../src/worker/replies.js';
import type { ScriptedServer } from '../console/helpers/scripted-server.js';
import type { SlackCapture } from '../helpers/slack-capture.js';

export interface RefusedApprove {
  /** The Console API key the client sends. */
  key: string;
  /** What the peer says in its 401's `message`. */
  message: string;
  requestId: string;
  /** More the worker logs before the call (a line of its own carrying a secret). */
  before?: (logger: Logger) => void;
  /** Appended to the reason the outcome is posted with. */
  reasonSuffix?: string;
}

/** Every exit's text after a refused approve: `error`, `reason`, `logs`, `slack`. */
export async function exitsOfRefusedApprove(
  api: ScriptedServer,
  slack: SlackCapture,
  refused: RefusedApprove,
): Promise<Record<'error' | 'reason' | 'logs' | 'slack', string>> {
  api.setScript(() => ({
    status: 401,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ status: 401, message: refused.message }),
  }));
  const lines: string[] = [];
  const logger = createLogger({ service: 'worker', sink: (line) => lines.push(line) });
  refused.before?.(logger);
  const client = createConsoleClient({
    baseUrl: api.url,
    apiKey: async () => refused.key,
    maxRetries: 0,
    mutationBudget: false,
    logger,
  });
  const error = (await client.releasePipelineTriggers
    .approve('trg_1', { phaseID: 'ph_1' })
    .catch((e: unknown) => e)) as ApiError;
  expect(error.status).toBe(401);
  const reason = platformMessage(error);
  logger.error('approve failed', { error, reason });
  const before = slack.posts.length;
  await postToSlack(
    slack.url(`/services/T0/B0/${refused.requestId}`),
    outcomeMessage({
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: '2026-11-30T10:00:00Z',
      },
      requestId: refused.requestId,
      result: 'rejected',
      rule: 'CI',
      reason: `${reason}${refused.reasonSuffix ?? ''}`,
      dryRun: false,
    }),
    { allowedOrigins: [slack.origin] },
  );
  return {
    error: `${String(error)} ${error.said ?? ''}`,
    reason,
    logs: lines.join('\n'),
    slack: JSON.stringify(slack.posts.slice(before)),
  };
}
