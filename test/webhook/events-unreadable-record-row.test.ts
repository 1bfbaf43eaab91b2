/**
 * `/autopilot events` with a broken entry among the events (`null`, a string, a list: a client
 * SDK's broken batch). Since f11472a such an element reads as an empty record, in its place so
 * that pagination stays right; the listing showed it as a row of blanks, which a release manager
 * reads as a rendering fault or misses. It is now one row saying the record was unreadable, in
 * its place. Through the real client and read handler, serving the platform's raw pages.
 */
import { describe, expect, it } from 'vitest';
import { answerRead } from '../../src/webhook/reads.js';
import { eventsAsWrittenForTests } from '../helpers/events-as-written.js';
import { consoleAt, readContext } from './events.js';

const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);

/** Newest first, 14 entries a minute apart; the third and the fifth broken. */
const records: unknown[] = Array.from({ length: 14 }, (_, i) => ({
  timestamp: String(T0 - i * 60_000),
  name: `e${i}`,
  source: 'web',
  userID: `u${i}`,
}));
records[2] = null;
records[4] = 'garbage';

describe('events listing with an unreadable entry', () => {
  const server = eventsAsWrittenForTests(records, { nextPage: true });

  it('shows each as one row saying the record was unreadable, in its place, never a blank row', async () => {
    const read = await answerRead(readContext(consoleAt(server.url, T0), T0), { name: 'events', page: 1 });
    expect(read.outcome, read.reply.text).toBe('ok');
    const text = (read.reply.blocks ?? [])
      .map((b) => (b as { text?: { text?: string } }).text?.text ?? '')
      .find((t) => t.startsWith('```'));
    const lines = (text ?? '').split('\n').slice(2, -1); // the rows, less the fence and the header
    expect(lines).toHaveLength(10);
    expect(lines.filter((line) => line.trim() === '')).toEqual([]);
    expect(lines[2]).toMatch(/^\(unreadable record\)/);
    expect(lines[4]).toMatch(/^\(unreadable record\)/);
    expect(lines[3]).toContain('e3');
    expect(lines.filter((line) => line.includes('unreadable'))).toHaveLength(2);
  });
});
