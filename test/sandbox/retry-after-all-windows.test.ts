/**
 * The sandbox's 429 told the Retry-After of the first full window only. With the 10-s and the
 * 15-min window both full (a drain at full speed reaches the 900th mutation with the last 100
 * inside 10 s), it said "retry in 10 s" though a retry then was certain to be refused again: a
 * Retry-After the client honours must name the time a retry can pass, i.e. the latest of every
 * full window's. Over HTTP, on the sandbox's injected clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
let running: RunningSandbox | undefined;
afterEach(() => running?.close());

async function mutate(url: string) {
  const response = await fetch(`${url}/console/v1/roles/member`, {
    method: 'PATCH',
    headers: { 'SERVICE-API-KEY': 'sandbox-key', 'content-type': 'application/json' },
    body: JSON.stringify({ permissions: {} }),
  });
  await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

describe('sandbox Retry-After with several full windows', () => {
  it('names the time every full window allows a retry, and a retry then passes', async () => {
    let clock = NOW;
    running = await startSandbox({
      now: () => clock,
      rateLimits: {
        limits: [
          { max: 2, perMs: 1_000 },
          { max: 2, perMs: 60_000 },
        ],
      },
    });
    expect((await mutate(running.url)).status).toBe(200);
    expect((await mutate(running.url)).status).toBe(200);

    const limited = await mutate(running.url);
    expect(limited.status).toBe(429);
    // Both windows are full: only the 60-s one's end lets a request through.
    expect(limited.retryAfter).toBe('60');

    clock = NOW + 1_000; // the short window's end: still refused by the long one
    expect((await mutate(running.url)).status).toBe(429);
    clock = NOW + 60_000;
    expect((await mutate(running.url)).status).toBe(200);
  });
});
