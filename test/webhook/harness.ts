/**
 * Building the webhook for tests: a policy, an in-memory secrets provider (rotatable), log
 * lines captured as parsed JSON, and whatever queue, state and Console API the test brings.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ActionRequest } from '../../src/actions/request.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import type { Policy, PolicyInput } from '../../src/policy/schema.js';
import type { SecretsProvider } from '../../src/secrets/secrets.js';
import { holdRequest } from '../../src/state/held.js';
import { readPause, writePause } from '../../src/state/pause.js';
import { markQueued, queuedAs } from '../../src/state/queued.js';
import type { StateTable } from '../../src/state/table.js';
import { writeVeto } from '../../src/state/veto.js';
import { createWebhookApp } from '../../src/webhook/app.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import type { ConsoleReads } from '../../src/webhook/reads.js';
import { SIGNING_SECRET } from '../helpers/slack-requests.js';

export const TEST_POLICY: PolicyInput = {
  version: 1,
  timezone: 'Europe/Berlin',
  approvals: {
    freezes: [{ name: 'year-end freeze', start: '2026-12-20T00:00:00Z', end: '2027-01-04T00:00:00Z' }],
  },
  chat: {
    teams: ['T0001'],
    grants: {
      U0ADMIN: ['approve_phase', 'disable_groups', 'archive_config', 'pause'],
      U0RELEASE: ['approve_phase'],
      U0OPS: ['pause'],
    },
  },
};

export function testPolicy(overrides: Partial<PolicyInput> = {}): Policy {
  return parsePolicy({ ...TEST_POLICY, ...overrides });
}

/** Secrets held in memory; `rotate()` changes what the next refresh returns. */
export function memorySecrets(initial = SIGNING_SECRET) {
  let current = initial;
  let source = initial;
  let refreshes = 0;
  const provider: SecretsProvider & { rotate(next: string): void; refreshes(): number } = {
    async get() {
      return { consoleApiKey: 'sandbox-key', slackSigningSecret: current };
    },
    async refresh() {
      refreshes++;
      const changed = current !== source;
      current = source;
      return changed;
    },
    rotate(next: string) {
      source = next;
    },
    refreshes: () => refreshes,
  };
  return provider;
}

/** An SQS stand-in that records what would be sent (for tests about what must NOT be sent). */
export function recordingSqs() {
  const sent: unknown[] = [];
  const sqs = {
    async send(command: { input: unknown }) {
      sent.push(command.input);
      return { MessageId: `m-${sent.length}` };
    },
  } as unknown as Pick<SQSClient, 'send'>;
  return { sqs, sent };
}

export const NO_CONSOLE: ConsoleReads = new Proxy({} as ConsoleReads, {
  get() {
    throw new Error('this test does not reach the Console API');
  },
});

export interface HarnessOptions extends Partial<WebhookDeps> {
  table?: StateTable;
}

export function buildApp(options: HarnessOptions = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const posts: Array<{ url: string; message: unknown }> = [];
  const { table, ...rest } = options;
  const queued = new Map<string, string>();
  const deps: WebhookDeps = {
    policy: testPolicy(),
    secrets: memorySecrets(),
    console: NO_CONSOLE,
    ...recordingSqs(),
    queueUrl: 'http://127.0.0.1:1/000000000000/none',
    pause: table
      ? { read: () => readPause(table), write: (change) => writePause(table, change) }
      : {
          read: async () => ({ paused: false }),
          write: async () => {
            throw new Error('no state table in this test');
          },
        },
    writeVeto: table
      ? (key, veto, formerKey) => writeVeto(table, key, veto, formerKey)
      : async () => {
          throw new Error('no state table in this test');
        },
    queued: table
      ? {
          mark: (requestId, messageId, at) => markQueued(table, requestId, messageId, at),
          find: (requestId) => queuedAs(table, requestId),
        }
      : {
          mark: async (requestId, messageId) => {
            queued.set(requestId, messageId);
          },
          find: async (requestId) => queued.get(requestId),
        },
    postReply: async (url, message) => {
      posts.push({ url, message });
      return { ok: true, status: 200 };
    },
    logger: createLogger({ service: 'webhook-test', sink: (line) => lines.push(JSON.parse(line)) }),
    ...rest,
  };
  const app = createWebhookApp(deps);
  return { app, deps, lines, posts, requestLines: () => lines.filter((l) => l.message === 'request') };
}

/** `requestId` (ci:deploy-bot approving `triggerId`'s ph_1) held for the CI window since 19:59:01 on 2026-11-23. */
export async function holdForCiWindow(
  table: StateTable,
  requestId: string,
  triggerId: string,
): Promise<void> {
  const request: ActionRequest = {
    version: 1,
    action: 'approve_phase',
    triggerId,
    phaseId: 'ph_1',
    requestedBy: { source: 'ci', id: 'deploy-bot' },
    requestedAt: '2026-11-23T19:59:00.000Z',
    requestId,
  };
  await holdRequest(
    table,
    {
      requestId,
      action: 'approve_phase',
      target: `trigger ${triggerId} phase ph_1`,
      requester: 'ci:deploy-bot',
      why: 'window',
      rule: 'ciWindow',
      reason: 'outside the CI window',
      since: '2026-11-23T19:59:01.000Z',
      request,
    },
    new Date('2026-11-23T19:59:01.000Z'),
  );
}
