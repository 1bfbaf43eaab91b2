/**
 * A mutation whose first attempt was answered 429 (the platform refused it: nothing was done) is
 * retried by the client; the retry is refused for good (a 409: someone else approved the phase).
 * The worker told that as ":warning: The Console API refused …, but an earlier attempt may have
 * done it" and kept the effect's reached mark: a 429 is an answer, so no earlier attempt of this
 * request can have made the change. Only an attempt left without an answer may have.
 *
 * The Console API is the sandbox over HTTP; a fetch in front of it plays the platform's 429 and
 * its 409 for a phase already approved.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { readFinal } from '../../src/state/audit.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { type Bench, channelPostsAbout, startBench } from './fixture.js';

let bench: Bench;
let worker: WorkerHandler;
/** Approve calls still to be answered 429 before they reach the sandbox. */
let rateLimit = 0;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

const platformFetch: typeof fetch = async (input, init) => {
  const url = new URL(String(input));
  const approve = /\/release_pipeline_triggers\/([^/]+)\/approve$/.exec(url.pathname);
  if (approve && rateLimit > 0) {
    rateLimit--;
    // The 10-s window's refusal: nothing was done, come back in a moment.
    return json(429, { status: 429, message: 'Too many requests' }, { 'retry-after-ms': '1' });
  }
  if (approve) {
    const { phaseID } = JSON.parse(String(init?.body)) as { phaseID: string };
    const trigger = bench.api.sandbox.state.triggers.get(decodeURIComponent(approve[1] as string));
    if (trigger?.actions.some((a) => a.phaseID === phaseID))
      return json(409, { status: 409, message: `Phase ${phaseID} is already approved.` });
  }
  return fetch(input, init);
};

beforeAll(async () => {
  bench = await startBench();
  const client = createConsoleClient({
    baseUrl: bench.api.url,
    apiKey: 'sandbox-key',
    fetch: platformFetch,
    timeoutMs: 5_000,
    maxRetries: 2,
    maxRetryDelayMs: 100,
    mutationBudget: false,
    random: () => 0,
    clock: clockOf(() => bench.clock.now.getTime()),
  });
  worker = bench.worker({ client });
});
afterAll(async () => {
  await bench?.close();
});
beforeEach(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  rateLimit = 0;
  await bench.purge();
});

describe('a refusal after a 429', () => {
  it('is told as the refusal it is: the 429 was an answer, nothing of ours was done', async () => {
    const trigger = bench.api.sandbox.state.triggers.get('trg_6');
    const phase = trigger?.currentPhaseID as string;
    // Someone else approved the phase; this request's first attempt is refused with a 429.
    trigger?.actions.push({ timeMs: 0, phaseID: phase, actorName: 'someone', actorID: 'usr_1' });
    const from = bench.slack.posts.length;
    await bench.send({ triggerId: 'trg_6', phaseId: phase, requestId: 'refused-after-429' });
    rateLimit = 1;
    expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(rateLimit).toBe(0); // the 429 was met, and the call retried

    const final = await readFinal(bench.table, 'refused-after-429');
    expect(final?.result).toBe('rejected');
    expect(final?.reason).not.toMatch(/may have/);
    const told = channelPostsAbout(bench, 'refused-after-429', from);
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(':x: The Console API refused');
    expect(told[0]).not.toMatch(/may have/);
  });
});
