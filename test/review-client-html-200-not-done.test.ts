/**
 * A 2xx whose body is not JSON at all (an HTML page, an empty body) is no answer of the Console API:
 * a proxy's login or "blocked" page, or a base URL pointing at a web app that serves its index.html
 * for every path, answers 200 without the platform ever seeing the request. The worker read every
 * 2xx it could not parse as "the platform accepted the mutation, so it happened" and told the
 * requester the phase was approved, the groups disabled or the config archived, when nothing was.
 * The sandbox's malformed fault is exactly that case: it changes nothing and answers 200 HTML.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovePhaseRequest, ArchiveConfigRequest } from '../src/actions/request.js';
import { createConsoleClient } from '../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../src/sandbox/index.js';
import { executeAction } from '../src/worker/execute.js';

let running: RunningSandbox;
beforeAll(async () => {
  running = await startSandbox({ rateLimits: false });
});
afterAll(() => running.close());
beforeEach(() => running.sandbox.reset());

const client = () =>
  createConsoleClient({
    baseUrl: running.url,
    apiKey: 'sandbox-key',
    mutationBudget: false,
    maxRetries: 0,
  });

describe('a 2xx mutation answer that is not JSON', () => {
  it.each(['html', 'empty'] as const)('(%s) is not told as an approval that happened', async (kind) => {
    const trigger = running.sandbox.state.triggers.get('trg_1');
    const phase = trigger?.currentPhaseID as string;
    running.sandbox.setFaults({
      malformedRate: 1,
      malformedStatus: 200,
      malformedKind: kind,
      only: 'mutations',
    });
    const request: ApprovePhaseRequest = {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_1',
      phaseId: phase,
      requestedBy: { source: 'ci', id: 'deploy' },
      requestedAt: '2026-11-22T10:00:00Z',
    };

    const result = await executeAction(client(), request, {});

    // Nothing was approved: the trigger still waits on the same phase.
    expect(running.sandbox.state.triggers.get('trg_1')?.currentPhaseID).toBe(phase);
    expect(result.kind).not.toBe('done');
  });

  it('is not told as an archive that happened', async () => {
    const [configId, config] =
      [...running.sandbox.state.configs.entries()].find(([, c]) => !c.archived) ?? [];
    running.sandbox.setFaults({
      malformedRate: 1,
      malformedStatus: 200,
      malformedKind: 'html',
      only: 'mutations',
    });
    const request: ArchiveConfigRequest = {
      version: 1,
      action: 'archive_config',
      configId: configId as string,
      reason: 'stale',
      force: true,
      requestedBy: { source: 'schedule', id: 'sweeper' },
      requestedAt: '2026-11-22T10:00:00Z',
    };

    const result = await executeAction(client(), request, {});

    expect(config?.archived).toBeFalsy();
    expect(result.kind).not.toBe('done');
  });
});
