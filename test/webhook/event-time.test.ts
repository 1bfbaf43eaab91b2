/** An event time a Date cannot hold (client-written) is shown as given; it used to break `events` for everyone. */
import { describe, expect, it } from 'vitest';
import type { ConsoleReads } from '../../src/webhook/reads.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

const NOW = Date.UTC(2026, 10, 22, 10, 0, 0);

function consoleWith(events: Array<Record<string, unknown>>): ConsoleReads {
  return {
    events: {
      list: async () => ({
        data: events,
        pagination: { pageNumber: 1, itemsPerPage: 10, totalItems: events.length, nextPage: null },
      }),
    },
  } as unknown as ConsoleReads;
}

describe('events with one odd timestamp', () => {
  it('still lists the events (the odd time shown as given), not "the platform did not answer properly"', async () => {
    const events = [
      { timestamp: String(NOW - 1_000), name: 'checkout', source: 'web', userID: 'u1', value: '1' },
      // nanoseconds instead of milliseconds, or any value a client SDK chose
      { timestamp: '1790000000000000000', name: 'odd', source: 'sdk', userID: 'u2', value: '2' },
    ];
    const { app, requestLines } = buildApp({ now: () => NOW, console: consoleWith(events) });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'events', userId: 'U0READER' }), {
        timestamp: NOW / 1000,
      }),
    );
    expect(res.status).toBe(200);
    const reply = (await res.json()) as { text: string; blocks?: unknown[] };
    expect(reply.text).not.toMatch(/did not answer properly/);
    expect(JSON.stringify(reply.blocks)).toContain('checkout');
    expect(requestLines().at(-1)!.outcome).toBe('ok');
  });
});
