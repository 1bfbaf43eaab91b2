/**
 * How a Console API answer becomes an execution result, over real HTTP against a scripted
 * server: in particular the approve whose first attempt got no answer and whose retry finds
 * the phase already moved on (possibly by that very attempt).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovePhaseRequest } from '../../src/actions/request.js';
import { createConsoleClient } from '../../src/console/index.js';
import { executeAction } from '../../src/worker/execute.js';
import { type ScriptedServer, startScriptedServer } from '../console/helpers/scripted-server.js';

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

function client() {
  return createConsoleClient({
    baseUrl: server.url,
    apiKey: 'test-key',
    mutationBudget: false,
    timeoutMs: 200,
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
