/**
 * A 2xx whose body is not JSON at all (an HTML page, an empty body, broken JSON) is no answer of
 * the Console API: a proxy's login or "blocked" page, or a base URL pointing at a web app that
 * serves its index.html for every path, answers 200 without the platform ever seeing the request
 * (or, in front of it, after it acted). The worker read every 2xx it could not parse as "the
 * platform accepted the mutation, so it happened" and told the requester the phase was approved,
 * the groups disabled or the config archived, when nothing was (review at 92cb279). Now such an
 * answer is unconfirmed, like a lost one: retried through the queue with the effect's "may have
 * reached" mark, never told as done; a request that gives up ends "may have been done: check".
 * The sandbox's malformed fault is exactly that case: it changes nothing and answers 200.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovePhaseRequest, ArchiveConfigRequest } from '../../src/actions/request.js';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { executeAction } from '../../src/worker/execute.js';
import { benchResetEachTest, onReceive } from './fixture.js';

describe('executeAction, a 2xx mutation answer that is not JSON', () => {
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

  it.each(['html', 'empty', 'invalid-json'] as const)(
    '(%s) is not told as an approval that happened',
    async (kind) => {
      const phase = running.sandbox.state.triggers.get('trg_1')?.currentPhaseID as string;
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
      // Unconfirmed: retried through the queue, and it may have reached the platform.
      expect(result).toMatchObject({ kind: 'transient', mayHaveReached: true, rateLimited: false });
      expect(result.reason).toMatch(/not confirmed: .*status 200, content-type .+, \d+ bytes\) is not JSON/);
      expect(result.reason).not.toContain('<');
    },
  );

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
    expect(result).toMatchObject({ kind: 'transient', mayHaveReached: true });
    expect(result.reason).toContain('content-type text/html');
  });
});

describe('the worker, given a 2xx mutation answer that is not JSON', () => {
  const bench = benchResetEachTest({ client: { maxRetries: 0 } });
  /**
   * In front of the sandbox: `page` mutations are answered by a proxy's page without reaching it;
   * `replaced` reach it (the change is made) and their answer is replaced by such a page.
   */
  const proxy = { page: 0, replaced: 0 };
  const PAGE = '<html><head><title>Sign in</title></head><body>corporate proxy sandbox-key</body></html>';
  const proxyPage = () =>
    new Response(PAGE, { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } });
  const proxyFetch: typeof fetch = async (input, init) => {
    const mutation = init?.method !== undefined && init.method !== 'GET';
    if (mutation && proxy.page > 0) {
      proxy.page--;
      return proxyPage();
    }
    const response = await fetch(input, init);
    if (mutation && proxy.replaced > 0) {
      proxy.replaced--;
      await response.text();
      return proxyPage();
    }
    return response;
  };
  let worker: ReturnType<typeof bench.worker>;
  const admin = { source: 'slack' as const, id: 'U0ADMIN' };
  beforeAll(() => {
    const client = createConsoleClient({
      baseUrl: bench.api.url,
      apiKey: 'sandbox-key',
      fetch: proxyFetch,
      maxRetries: 0,
      mutationBudget: false,
      clock: clockOf(() => bench.clock.now.getTime()),
    });
    worker = bench.worker({
      client,
      policy: {
        version: 1,
        timezone: 'UTC',
        approvals: { rules: [{ name: 'CI approves', when: { requesters: ['ci:*'] }, decision: 'approve' }] },
        actions: { archive_config: { requesters: ['slack:U0ADMIN'] } },
      },
    });
  });
  beforeEach(() => {
    proxy.page = 0;
    proxy.replaced = 0;
    bench.slack.posts.length = 0;
  });
  const phaseOf = (triggerId: string) =>
    bench.api.sandbox.state.triggers.get(triggerId)?.currentPhaseID as string;
  const approvedTimes = (triggerId: string, phase: string) =>
    bench.api.sandbox.state.triggers.get(triggerId)?.actions.filter((a) => a.phaseID === phase).length;

  it('retries an approval answered by a proxy page, logs why without the page, and approves it once the platform answers', async () => {
    const phase = phaseOf('trg_6');
    await bench.send({ triggerId: 'trg_6', phaseId: phase, requestId: 'html-approve' });
    proxy.page = 1;
    const event = await bench.receive();
    const first = await bench.run(worker, event);

    // Not acknowledged: the record comes back; nothing is told or recorded as done.
    expect(first.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([event.Records[0]?.messageId]);
    expect(approvedTimes('trg_6', phase)).toBe(0);
    expect(await readFinal(bench.table, 'html-approve')).toBeUndefined();
    expect(bench.slack.posts).toEqual([]);
    const line = bench.logs
      .filter((l) => l.requestId === 'html-approve' && l.message === 'record will be retried')
      .at(-1);
    const said = JSON.stringify(line);
    expect(said).toMatch(/status 200, content-type text\/html; charset=utf-8, \d+ bytes\) is not JSON/);
    expect(said).not.toContain('<html');
    expect(said).not.toContain('Sign in');
    expect(said).not.toContain('sandbox-key');

    // The next receive reaches the platform: the phase is still current, so it is approved now.
    expect(await bench.run(worker, onReceive(event, 2))).toEqual({ batchItemFailures: [] });
    expect(approvedTimes('trg_6', phase)).toBe(1);
    expect((await readFinal(bench.table, 'html-approve'))?.result).toBe('approved');
  });

  it('ends an approval whose answer a proxy replaced stale, "an earlier attempt may have approved it", never approving twice', async () => {
    const phase = phaseOf('trg_7');
    await bench.send({ triggerId: 'trg_7', phaseId: phase, requestId: 'html-replaced' });
    proxy.replaced = 1;
    const event = await bench.receive();
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    expect(approvedTimes('trg_7', phase)).toBe(1);

    expect(await bench.run(worker, onReceive(event, 2))).toEqual({ batchItemFailures: [] });
    const final = await readFinal(bench.table, 'html-replaced');
    expect(final).toMatchObject({ result: 'stale', mayHaveBeenDone: true });
    expect(final?.reason).toMatch(/may have been that attempt that approved it/);
    expect(approvedTimes('trg_7', phase)).toBe(1);
  });

  it('ends an archive retried after a proxy page done, saying the earlier attempt may have made the change', async () => {
    const configId = [...bench.api.sandbox.state.configs.values()].find((c) => !c.archived)?.id as string;
    await bench.send({
      action: 'archive_config',
      configId,
      reason: 'unused',
      force: true,
      requestedBy: admin,
      requestId: 'html-archive',
    });
    proxy.page = 1;
    const event = await bench.receive();
    expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
    expect(bench.api.sandbox.state.configs.get(configId)?.archived).toBe(false);

    expect(await bench.run(worker, onReceive(event, 2))).toEqual({ batchItemFailures: [] });
    const final = await readFinal(bench.table, 'html-archive');
    expect(final?.result).toBe('archived');
    expect(final?.reason).toContain('may have been that attempt that made this change');
    expect(bench.api.sandbox.state.configs.get(configId)?.archived).toBe(true);
  });

  it('gives up on the last receive as dead-lettered "may have been done: check", never as done', async () => {
    const phase = phaseOf('trg_8');
    await bench.send({
      triggerId: 'trg_8',
      phaseId: phase,
      requestId: 'html-every-time',
      reply: { slackResponseUrl: bench.slack.url('/actions/html') },
    });
    proxy.page = MAX_RECEIVE_COUNT;
    const event = await bench.receive();
    for (let receive = 1; receive <= MAX_RECEIVE_COUNT; receive++)
      expect((await bench.run(worker, onReceive(event, receive))).batchItemFailures).toHaveLength(1);

    expect(approvedTimes('trg_8', phase)).toBe(0);
    expect(await readFinal(bench.table, 'html-every-time')).toBeUndefined();
    const audit = await readAudit(bench.table, 'html-every-time');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      result: 'dead-lettered',
      rule: 'retries-exhausted',
      mayHaveBeenDone: true,
    });
    expect(audit[0]?.reason).toContain('an attempt may have reached the Console API');
    const reply = bench.slack.posts.filter((p) => p.path === '/actions/html');
    expect(reply).toHaveLength(1);
    const text = String(reply[0]?.body.text);
    expect(text).toContain('check whether the change was made');
    expect(text).toContain('is not JSON');
    expect(text).not.toContain('Sign in');
  });
});
