/**
 * A Retry-After longer than `maxRetryDelayMs` (a 15-minute window's 429 asks for minutes): no
 * retry is sent before it (it could only be refused again); the call ends at once with the
 * RateLimitError, for reads and mutations alike.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConsoleClient, RateLimitError } from '../../src/console/index.js';
import { type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
let sleeps: number[];
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  sleeps = [];
});

const client = () =>
  createConsoleClient({
    baseUrl: server.url,
    apiKey: 'review-key',
    mutationBudget: false,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });

const RETRY_AFTER_S = 120;

describe('a 429 whose Retry-After exceeds maxRetryDelayMs', () => {
  it.each([
    ['segments.get (GET)', () => client().segments.get('seg_1')],
    [
      'releasePipelineTriggers.approve (PUT)',
      () => client().releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' }),
    ],
  ])('%s: no request is sent again before Retry-After has passed', async (_name, call) => {
    server.setScript(() => ({
      status: 429,
      headers: { 'retry-after': String(RETRY_AFTER_S) },
      body: { status: 429, message: 'Too many requests.' },
    }));
    await expect(call()).rejects.toBeInstanceOf(RateLimitError);
    // Waits (ms) after which a request was sent again although Retry-After had not passed.
    const earlyRetryWaits =
      server.requests.length > 1 ? sleeps.filter((ms) => ms < RETRY_AFTER_S * 1000) : [];
    expect(earlyRetryWaits).toEqual([]);
  });
});
