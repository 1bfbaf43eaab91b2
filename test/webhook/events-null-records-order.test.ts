/**
 * `/autopilot events` on a newest-first platform whose newest entries are broken (`null`: a client
 * SDK's broken batch). Since f11472a such an element reads as an empty record (timestamp '')
 * instead of failing the page; the listing took '' for 1970 (`Number('') === 0`), not for the
 * unreadable timestamp the sweeper's order rule skips, so four of them made page 1 look
 * oldest-first and the reply showed the OLDEST events under "Latest events · Newest first".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { answerRead, type ConsoleReads, type ReadContext } from '../../src/webhook/reads.js';
import { type EventsAsWritten, serveEventsAsWritten } from '../helpers/events-as-written.js';
import { testPolicy } from './harness.js';

const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
const TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g;
const asText = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/** Newest first: four broken entries, then 26 events a minute apart, newest first. */
const stamps = Array.from({ length: 26 }, (_, i) => T0 - i * 60_000);
const records: unknown[] = [
  null,
  null,
  null,
  null,
  ...stamps.map((ts, i) => ({ timestamp: String(ts), name: `e${i}`, source: 'web', userID: `u${i}` })),
];

describe('events listing with null entries on a newest-first platform', () => {
  let server: EventsAsWritten;
  let reads: ConsoleReads;
  beforeAll(async () => {
    server = await serveEventsAsWritten(records, { nextPage: true });
    reads = createConsoleClient({
      baseUrl: server.url,
      apiKey: 'k',
      maxRetries: 0,
      mutationBudget: false,
      clock: clockOf(() => T0),
    }) as unknown as ConsoleReads;
  });
  afterAll(async () => {
    await server.close();
  });

  it('page 1 shows the newest events, never the oldest ones as the latest', async () => {
    const ctx: ReadContext = {
      console: reads,
      policy: testPolicy(),
      status: { readPause: async () => ({ paused: false }) },
      userId: 'U0READER',
      slash: '/autopilot',
      deadline: T0 + 5_000,
      now: () => T0,
    };
    const read = await answerRead(ctx, { name: 'events', page: 1 });
    expect(read.outcome, read.reply.text).toBe('ok');
    const all = JSON.stringify(read.reply.blocks);
    const times = all.match(TIME) ?? [];
    // The oldest event must not be on "page 1 of the latest".
    expect(times).not.toContain(asText(stamps[25] as number));
    expect(times).toContain(asText(stamps[0] as number));
  });
});
