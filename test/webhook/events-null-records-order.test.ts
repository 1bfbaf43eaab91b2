/**
 * `/autopilot events` on a newest-first platform whose newest entries are broken (`null`: a client
 * SDK's broken batch). Since f11472a such an element reads as an empty record (timestamp '')
 * instead of failing the page; the listing took '' for 1970 (`Number('') === 0`), not for the
 * unreadable timestamp the sweeper's order rule skips, so four of them made page 1 look
 * oldest-first and the reply showed the OLDEST events under "Latest events · Newest first".
 */
import { describe, expect, it } from 'vitest';
import { answerRead } from '../../src/webhook/reads.js';
import { eventsAsWrittenForTests } from '../helpers/events-as-written.js';
import { asText, consoleAt, readContext, TIME } from './events.js';

const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);

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
  const server = eventsAsWrittenForTests(records, { nextPage: true });

  it('page 1 shows the newest events, never the oldest ones as the latest', async () => {
    const read = await answerRead(readContext(consoleAt(server.url, T0), T0), { name: 'events', page: 1 });
    expect(read.outcome, read.reply.text).toBe('ok');
    const all = JSON.stringify(read.reply.blocks);
    const times = all.match(TIME) ?? [];
    // The oldest event must not be on "page 1 of the latest".
    expect(times).not.toContain(asText(stamps[25] as number));
    expect(times).toContain(asText(stamps[0] as number));
  });
});
