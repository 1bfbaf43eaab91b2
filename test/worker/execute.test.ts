/**
 * How a Console API answer becomes an execution result, over real HTTP against a scripted
 * server: in particular the approve whose first attempt got no answer and whose retry finds
 * the phase already moved on (possibly by that very attempt).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovePhaseRequest } from '../../src/actions/request.js';
import { createConsoleClient } from '../../src/console/index.js';
import { executeAction } from '../../src/worker/execute.js';
import {
  closedPortUrl,
  type ScriptedServer,
  startScriptedServer,
} from '../console/helpers/scripted-server.js';

const request: ApprovePhaseRequest = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_1',
  phaseId: 'ph_1',
  requestedBy: { source: 'ci', id: 'deploy' },
  requestedAt: '2026-11-22T10:00:00Z',
};
const notCurrent = { status: 400, body: { status: 400, message: 'ph_1 is not the current phase' } };

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

function client(options: { baseUrl?: string; maxRetries?: number } = {}) {
  return createConsoleClient({
    baseUrl: options.baseUrl ?? server.url,
    ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    apiKey: 'test-key',
    mutationBudget: false,
    // Long enough for a request to reach the scripted server on a loaded machine before its timer
    // fires: the hang cases check what a timeout *in flight* means (200 ms could fire before sending).
    timeoutMs: 1_000,
    maxRetryDelayMs: 10,
  });
}

describe('executeAction', () => {
  it('ends a first-attempt 400 as stale with the platform message', async () => {
    server.setScript(() => notCurrent);
    const result = await executeAction(client(), request, {});
    expect(result).toMatchObject({ kind: 'stale', reason: 'stale request: ph_1 is not the current phase' });
  });

  it('says when the phase may have moved on because of its own unanswered earlier attempt', async () => {
    const before = server.requests.length;
    server.setScript((_request, index) => (index === before ? 'hang' : notCurrent));
    const result = await executeAction(client(), request, {});
    expect(server.requests.length - before).toBe(2);
    expect(result.kind).toBe('stale');
    expect(result.reason).toMatch(/earlier attempt of this call got no answer/);
  });
});

describe('whether a failed call may have reached the platform', () => {
  const rateLimited = { status: 429, body: { status: 429, message: 'slow down' } };
  const reached = async (options: Parameters<typeof client>[0], mutation = {}) => {
    const result = await executeAction(client(options), request, mutation);
    if (result.kind !== 'transient') throw new Error(`expected a transient failure, got ${result.kind}`);
    return result.mayHaveReached;
  };

  it('has not when one attempt was refused with 429, failed to connect, or never left for its deadline', async () => {
    server.setScript(() => rateLimited);
    expect(await reached({ maxRetries: 0 })).toBe(false);
    expect(await reached({ baseUrl: await closedPortUrl(), maxRetries: 0 })).toBe(false);
    expect(await reached({ maxRetries: 0 }, { deadline: 0 })).toBe(false);
  });

  it('has not when every attempt was refused with 429', async () => {
    // The transport knows every answer (`earlierMayHaveReached`), not only the last: 429s did
    // nothing, so a held request stays cancellable and a give-up never says "may have been done".
    server.setScript(() => rateLimited);
    expect(await reached({ maxRetries: 2 })).toBe(false);
  });

  it('may have when an attempt timed out in flight, the server failed, or an earlier attempt did', async () => {
    server.setScript(() => 'hang');
    expect(await reached({ maxRetries: 0 })).toBe(true);
    server.setScript(() => ({ status: 502, body: { status: 502, message: 'bad gateway' } }));
    expect(await reached({ maxRetries: 0 })).toBe(true);
    // A 502 (the platform may have acted), then a 429: the last answer is a refusal, the first not.
    const before = server.requests.length;
    server.setScript((_request, index) =>
      index === before ? { status: 502, body: { status: 502, message: 'bad gateway' } } : rateLimited,
    );
    expect(await reached({ maxRetries: 1 })).toBe(true);
    expect(server.requests.length - before).toBe(2);
  });
});
