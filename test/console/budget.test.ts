import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiTimeoutError,
  type ConsoleClientOptions,
  createConsoleClient,
  MutationLimiter,
} from '../../src/console/index.js';
import { createManualClock } from './helpers/manual-clock.js';
import {
  closedPortUrl,
  ok,
  type ScriptedServer,
  SEGMENT,
  startScriptedServer,
} from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((req) => (req.method === 'GET' ? ok(SEGMENT) : ok({ id: 'x' })));
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const client = (extra: Partial<ConsoleClientOptions> = {}) =>
  createConsoleClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0, ...extra });

/** Waits (bounded) until the server has seen `n` requests. */
async function untilServed(n: number) {
  for (let i = 0; i < 500 && server.requests.length < n; i++) await new Promise((r) => setTimeout(r, 5));
}

describe('the mutation budget of a client', () => {
  it('is shared by all mutations, leaves reads alone, and makes a backlog wait its turn', async () => {
    const clock = createManualClock(Date.now());
    const c = client({ clock, mutationBudget: { limits: [{ max: 2, perMs: 60_000 }] } });
    const approve = c.releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' });
    const archive = c.dynamicConfigs.archive('cfg', { forceArchive: false, archiveReason: 'stale' });
    const disable = c.experiments.disableGroups('exp', { group_names: ['test'] });
    await Promise.all([approve, archive, c.segments.get('a'), c.segments.get('b'), c.segments.get('c')]);
    expect(server.requests.filter((r) => r.method !== 'GET')).toHaveLength(2);
    expect(server.requests.filter((r) => r.method === 'GET')).toHaveLength(3);
    expect((c.mutationBudget as MutationLimiter | undefined)?.waiting).toBe(1);

    await clock.advance(59_999);
    expect(server.requests.filter((r) => r.method !== 'GET')).toHaveLength(2);
    await clock.advance(1);
    await disable;
    expect(server.requests.filter((r) => r.method !== 'GET')).toHaveLength(3);
  });

  it('refuses, without a request, a mutation whose turn would come after its deadline', async () => {
    const clock = createManualClock(Date.now());
    const c = client({ clock, mutationBudget: { limits: [{ max: 1, perMs: 60_000 }] } });
    await c.releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' });
    const error = await c.releasePipelineTriggers
      .approve('trg_1', { phaseID: 'ph_2' }, { deadline: clock.now() + 30_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect(server.requests).toHaveLength(1);
  });

  it('defaults to the platform limits: 100 mutations go at once, the 101st waits 10 s', async () => {
    const clock = createManualClock(Date.now());
    const c = client({ clock });
    const all = Array.from({ length: 101 }, (_, i) => c.metrics.update(`m${i}::sum`, { isVerified: true }));
    await Promise.all(all.slice(0, 100));
    expect(server.requests).toHaveLength(100);
    expect((c.mutationBudget as MutationLimiter | undefined)?.waiting).toBe(1);
    await clock.advance(10_000);
    await all[100];
    expect(server.requests).toHaveLength(101);
  });

  it('gives a token back at once for each attempt that never left (a refused connection)', async () => {
    const clock = createManualClock(Date.parse('2026-11-23T10:00:00Z'));
    const budget = new MutationLimiter([{ max: 3, perMs: 15 * 60_000 }], clock);
    const unreachable = createConsoleClient({
      baseUrl: await closedPortUrl(),
      apiKey: 'k',
      mutationBudget: budget,
      clock,
      sleep: async () => undefined,
    });
    const error = await unreachable.releasePipelineTriggers
      .approve('trg_1', { phaseID: 'ph_1' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error).toMatchObject({ requestSent: false, attempts: 3 });
    // Three attempts, none counted by the platform: the window's three tokens are all free.
    for (let i = 0; i < 3; i++) await budget.acquire({ deadline: clock.now() });
  });

  it('can be disabled', async () => {
    const c = client({ mutationBudget: false });
    expect(c.mutationBudget).toBeUndefined();
    await Promise.all(
      Array.from({ length: 5 }, () => c.releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' })),
    );
    await untilServed(5);
    expect(server.requests).toHaveLength(5);
  });

  it('shrinks after a 429 from the server (another client spends part of the key) and not after a success', async () => {
    const clock = createManualClock(Date.now());
    const c = client({ clock, mutationBudget: { limits: [{ max: 10, perMs: 10_000 }] } });
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => c.metrics.update(`m${i}::sum`, { isVerified: true })),
    );
    expect((c.mutationBudget as MutationLimiter | undefined)?.allowances).toEqual([10]);
    server.setScript(() => ({ status: 429, body: { message: 'Too many requests.' } }));
    try {
      const refused = await c.metrics.update('m9::sum', { isVerified: true }).catch((e: unknown) => e);
      expect((refused as { status?: number }).status).toBe(429);
      // 5 tokens in use when the 429 came (4 returning, 1 in flight): 90% of that.
      expect((c.mutationBudget as MutationLimiter | undefined)?.allowances).toEqual([4]);
    } finally {
      server.setScript((req) => (req.method === 'GET' ? ok(SEGMENT) : ok({ id: 'x' })));
    }
  });
});
