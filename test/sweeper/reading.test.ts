/**
 * The sweeper's loop over a poll: the poll's end reaches it after the loop, a failed read ends
 * the loop as an `error` stop, and a failure in the loop's own body is never taken for a read's.
 */
import { describe, expect, it } from 'vitest';
import { EMPTY_CURSOR } from '../../src/state/sweep-cursor.js';
import { type PollEnd, type PolledPage, reading } from '../../src/sweeper/event-walk.js';

const page = (n: number): PolledPage => ({ newEvents: [], late: [], cursor: EMPTY_CURSOR, page: n });

async function* poll(pages: number, end: PollEnd | Error): AsyncGenerator<PolledPage, PollEnd> {
  for (let n = 1; n <= pages; n++) yield page(n);
  if (end instanceof Error) throw end;
  return end;
}

describe('reading a poll', () => {
  it('hands out every page, then the end the poll returned', async () => {
    const read = reading(poll(2, { caughtUp: false, stop: 'max-pages' }));
    const seen: number[] = [];
    for await (const p of read.pages) seen.push(p.page);
    expect(seen).toEqual([1, 2]);
    expect(read.end).toEqual({ caughtUp: false, stop: 'max-pages' });
  });

  it('ends the loop at a failed read, with the error as its stop', async () => {
    const failure = new Error('GET /events answered 500');
    const read = reading(poll(1, failure));
    const seen: number[] = [];
    for await (const p of read.pages) seen.push(p.page);
    expect(seen).toEqual([1]);
    expect(read.end).toEqual({ caughtUp: false, stop: 'error', error: failure });
  });

  it("lets a failure of the loop's body propagate, and says the poll was not read to its end", async () => {
    const read = reading(poll(3, { caughtUp: true, stop: 'caught-up' }));
    const run = async () => {
      for await (const p of read.pages) if (p.page === 2) throw new Error('flush failed');
    };
    await expect(run()).rejects.toThrow('flush failed');
    expect(read.end).toMatchObject({ caughtUp: false, stop: 'error' });
    expect((read.end as { error: Error }).error.message).toBe('the poll was not read to its end');
  });
});
