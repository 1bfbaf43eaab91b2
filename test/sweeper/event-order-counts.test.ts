/**
 * The order check of `GET /events` pages (src/sweeper/event-order.ts) counted pairs of timestamps
 * by comparing every event with every one listed after it: O(n²) per page. Every page of both
 * walks is checked, and a page is as large as the API serves it (SWEEPER_PAGE_SIZE has no
 * maximum, and a platform may ignore `limit`): a page of 150,000 events took over ten seconds of
 * CPU in the check alone (a minute and more on a loaded machine), a Lambda run's budget gone on one
 * page. The counts must stay exactly what comparing every pair gives (checked against that on
 * random pages), at a cost that grows like n log n (measured by `npm run bench -- sweeper`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventOrderError } from '../../src/sweeper/errors.js';
import { servedOrder, verifyOrder } from '../../src/sweeper/event-order.js';
import type { ReadPage } from '../../src/sweeper/event-walk.js';

/** What comparing every pair gives (the definition), for small pages only. */
function everyPair(stamps: readonly number[]): { up: number; down: number } {
  const known = stamps.filter((ts) => !Number.isNaN(ts));
  let up = 0;
  let down = 0;
  for (let i = 0; i < known.length; i++)
    for (let j = i + 1; j < known.length; j++) {
      if ((known[j] as number) > (known[i] as number)) up++;
      else if ((known[j] as number) < (known[i] as number)) down++;
    }
  return { up, down };
}

const pageOf = (stamps: readonly number[]): ReadPage => ({
  page: 2,
  total: stamps.length,
  size: stamps.length,
  items: stamps.map((ts, pos) => ({
    pos,
    ts,
    event: { name: 'exposure', timestamp: String(ts) },
  })) as ReadPage['items'],
});

const rejects = (stamps: readonly number[]): boolean => {
  try {
    verifyOrder(pageOf(stamps), 'oldest-first');
    return false;
  } catch (error) {
    if (error instanceof EventOrderError) return true;
    throw error;
  }
};

describe('the order check of an events page', () => {
  it('counts pairs exactly as comparing every pair does (ties, unparsable stamps, late batches)', () => {
    const stamp = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(Number.NaN));
    fc.assert(
      fc.property(fc.array(stamp, { maxLength: 40 }), (stamps) => {
        const { up, down } = everyPair(stamps);
        expect(servedOrder(stamps)).toBe(
          up === down ? undefined : up > down ? 'oldest-first' : 'newest-first',
        );
        expect(rejects(stamps)).toBe(down > up && down >= 2);
      }),
      { numRuns: 500, seed: 20261126 },
    );
  });

  it('tells the order of a page of 150,000 events listed by arrival', () => {
    // Oldest-first, with every tenth event a client batch listed an hour late.
    const base = 1_780_000_000_000;
    const stamps = Array.from({ length: 150_000 }, (_, i) =>
      i % 10 === 9 ? base + i * 1000 - 3_600_000 : base + i * 1000,
    );
    // Its cost is a benchmark's to measure (bench/sweeper.bench.ts), never a timed test's.
    expect(servedOrder(stamps)).toBe('oldest-first');
    expect(() => verifyOrder(pageOf(stamps), 'oldest-first')).not.toThrow();
  });
});
