/**
 * One element of an events page's `data` that is not a record: `null`, a string, a number or a
 * list (a client SDK or the platform's storage writing a broken entry). The page's validation
 * failed on it, so the sweeper's walk stopped at that page on every run (SweeperErrors, with
 * nothing an operator could do): no event after it was ever handed to a rule, no exposure
 * recorded, nothing judged, until the platform expired it. It reads as an empty record instead,
 * in its place (pagination and counts stay right), which no rule or exposure reads.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readCursor } from '../../src/state/sweep-cursor.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import {
  APPROVE_CANARY_RULE,
  drainQueue,
  freshState,
  makeSweeper,
  NOW,
  type Rig,
  startRig,
} from './harness.js';

const MIN = 60_000;

/** GET /console/v1/events over HTTP, oldest first, serving `records` exactly as written. */
function eventsServer(records: unknown[]): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const page = Number(url.searchParams.get('page') ?? 1);
    const limit = Number(url.searchParams.get('limit') ?? 10);
    const data = records.slice((page - 1) * limit, page * limit);
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        message: 'Events listed successfully',
        data,
        pagination: { itemsPerPage: limit, pageNumber: page, totalItems: records.length },
      }),
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('an events page element that is not a record', () => {
  let rig: Rig;
  let server: Server;
  const records: unknown[] = [];
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
    server = await eventsServer(records);
  });
  afterAll(async () => {
    await rig.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('does not stop the walk at its page: the events after it reach the rules', async () => {
    const checks = (at: number, n: number) => ({
      timestamp: String(at),
      name: 'release_checks_passed',
      metadata: { triggerID: `trg_${n}`, phaseID: 'ph_canary' },
    });
    records.push(
      checks(NOW - 30 * MIN, 1),
      null,
      'release_checks_passed',
      42,
      [{ timestamp: String(NOW - 15 * MIN), name: 'release_checks_passed' }],
      checks(NOW - 10 * MIN, 2),
      // The next page: the walk goes on past the first.
      ...Array.from({ length: 4 }, (_, i) => checks(NOW - (9 - i) * MIN, 3 + i)),
    );
    const state = await freshState(rig);
    const { port } = server.address() as AddressInfo;
    const client = createConsoleClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k',
      maxRetries: 0,
      clock: clockOf(() => NOW),
    });
    const policy = parsePolicy({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { eventRules: [APPROVE_CANARY_RULE] },
    });
    const sweeper = makeSweeper(rig, state, {
      policy,
      events: client.events,
      clock: () => NOW,
      pageSize: 6,
    });
    const handler = sweeperHandler(sweeper);

    const summary = await handler(
      { time: new Date(NOW).toISOString() },
      { getRemainingTimeInMillis: () => 60_000 },
    );
    expect(summary.stop).toBe('done');
    expect(summary.events.caughtUp).toBe(true);
    // Every element keeps its place: the cursor stands after all ten.
    expect((await readCursor(state.table))?.position).toBe(10);
    const queued = await drainQueue(rig, state.queueUrl);
    expect(queued.map((r) => r.triggerId).sort()).toEqual([
      'trg_1',
      'trg_2',
      'trg_3',
      'trg_4',
      'trg_5',
      'trg_6',
    ]);
  });
});
