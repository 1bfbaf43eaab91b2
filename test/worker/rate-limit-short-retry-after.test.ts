/**
 * A 429 moves the message's visibility and "never spins" (README): 15 s, 1 min, 4 min, 15 min,
 * which outlasts the platform's 15-minute window before the queue's fifth receive sends the
 * request to the DLQ. A platform (or a gateway in front of it) answering every 429 with
 * `Retry-After: 0` was believed: the worker made the message visible again after 0–2 s, four
 * receives passed in seconds inside the window that refused them, and the request was given up to
 * the DLQ ("Could not approve … after 5 attempts"). A shorter Retry-After no longer shortens the
 * schedule (src/worker/defer.ts): the client already waited it within the call and was refused.
 */
import { expect, it } from 'vitest';
import { benchForFile, onReceive } from './fixture.js';

const bench = benchForFile();

it('does not spend the receives before the DLQ inside the rate-limit window on `Retry-After: 0`', async () => {
  const worker = bench.worker();
  bench.api.sandbox.setFaults({ rateLimitRate: 1, retryAfterSeconds: 0, only: 'mutations' });
  const waits: number[] = [];
  try {
    // Receives 1 to 4 (the fifth is the last): each refused with 429, each setting the visibility.
    // A message of its own for each receive count, so each visibility change meets a message in flight.
    for (let receive = 1; receive <= 4; receive++) {
      await bench.purge(); // the message before, visible again at once, is not this receive's
      await bench.send({
        triggerId: `trg_${receive + 6}`,
        phaseId: 'ph_1',
        requestId: `retry-after-zero-${receive}`,
      });
      const event = onReceive(await bench.receive(), receive);
      const from = bench.logs.length;
      expect((await bench.run(worker, event)).batchItemFailures).toHaveLength(1);
      const backoff = bench.logs.slice(from).find((line) => line.backoffSeconds !== undefined);
      waits.push(Number(backoff?.backoffSeconds));
    }
  } finally {
    bench.api.sandbox.setFaults({ rateLimitRate: 0 });
  }
  // Each 429 was refused in full (nothing approved), and each backed off through the visibility.
  expect(waits.every((w) => Number.isFinite(w))).toBe(true);
  // What the README promises without a header: the waits before the last receive outlast the
  // platform's 15-minute window (15 s + 1 min + 4 min + 15 min, less 20 % jitter).
  const total = waits.reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThanOrEqual(15 * 60);
});
