/**
 * The worker's bench behind a platform that plays what the sandbox does not: an answer lost after
 * the sandbox acted (the connection breaks once the request was carried out), a 429 before a call
 * reaches it, and (with `conflicts`) the platform's 409 for a change already made. The Console
 * client goes through it with real retries (no backoff to speak of, no mutation budget).
 */
import { beforeAll, beforeEach } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { type Bench, benchResetEachTest } from './fixture.js';

export interface LostAnswerPlatform {
  /** Approve/archive calls whose answer is lost after the sandbox acted: how many more to lose. */
  loseAnswers: number;
  /** Approve calls still to be answered 429 before they reach the sandbox. */
  rateLimit: number;
  /** The bench's worker whose client goes through this platform (set before the first test). */
  worker: WorkerHandler;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/**
 * The bench of a test file (benchResetEachTest) and its platform, whose counters are back at 0
 * before each test. `conflicts`: a second approve of a phase, or archive of an archived config, is
 * answered 409 (else it reaches the sandbox, whose phase guard answers 400).
 */
export function lostAnswerBench(options: { maxRetries: number; conflicts: boolean }): {
  bench: Bench;
  platform: LostAnswerPlatform;
} {
  const bench = benchResetEachTest();
  const platform = { loseAnswers: 0, rateLimit: 0 } as LostAnswerPlatform;

  const platformFetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const state = bench.api.sandbox.state;
    const approve = /\/release_pipeline_triggers\/([^/]+)\/approve$/.exec(url.pathname);
    const archive = /\/dynamic_configs\/([^/]+)\/archive$/.exec(url.pathname);
    if (approve && platform.rateLimit > 0) {
      platform.rateLimit--;
      // The 10-s window's refusal: nothing was done, come back in a moment.
      return json(429, { status: 429, message: 'Too many requests' }, { 'retry-after-ms': '1' });
    }
    if (approve && options.conflicts) {
      const { phaseID } = JSON.parse(String(init?.body)) as { phaseID: string };
      const trigger = state.triggers.get(decodeURIComponent(approve[1] as string));
      if (trigger?.actions.some((a) => a.phaseID === phaseID))
        return json(409, { status: 409, message: `Phase ${phaseID} is already approved.` });
    }
    if (archive && options.conflicts && state.configs.get(decodeURIComponent(archive[1] as string))?.archived)
      return json(409, { status: 409, message: 'Dynamic config is already archived.' });
    const response = await fetch(input, init);
    if ((approve || archive) && platform.loseAnswers > 0) {
      platform.loseAnswers--;
      await response.text();
      // The request went out and was carried out; the connection broke before the answer came.
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      });
    }
    return response;
  };

  beforeAll(() => {
    const client = createConsoleClient({
      baseUrl: bench.api.url,
      apiKey: 'sandbox-key',
      fetch: platformFetch,
      timeoutMs: 5_000,
      maxRetries: options.maxRetries,
      maxRetryDelayMs: 100,
      mutationBudget: false,
      random: () => 0,
      clock: clockOf(() => bench.clock.now.getTime()),
    });
    platform.worker = bench.worker({ client });
  });
  beforeEach(() => {
    platform.loseAnswers = 0;
    platform.rateLimit = 0;
  });
  return { bench, platform };
}
