/**
 * One event record a client SDK wrote without a `timestamp` (or `name`) key. The record schema
 * reads a null, numeric or list-shaped field leniently so that no record makes its whole page
 * unreadable (src/console/schemas/events.ts), but a key that is absent failed the page's
 * validation: the sweeper's walk stopped at that page on every run (SweeperErrors, every run, with
 * nothing an operator could do), and no event logged after it was ever handed to a rule or
 * recorded as an exposure, until the platform expired it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { parsePolicy } from '../../src/policy/parse.js';
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
function eventsServer(records: Array<Record<string, unknown>>): Promise<Server> {
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

describe('an event record without a timestamp or name key', () => {
  let rig: Rig;
  let server: Server;
  const records: Array<Record<string, unknown>> = [];
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
      { name: 'page_view', userID: 'u1' }, // no timestamp key
      { timestamp: String(NOW - 20 * MIN), userID: 'u2' }, // no name key
      checks(NOW - 10 * MIN, 2),
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
      pageSize: 10,
    });
    const handler = sweeperHandler(sweeper);

    const summary = await handler(
      { time: new Date(NOW).toISOString() },
      { getRemainingTimeInMillis: () => 60_000 },
    );
    expect(summary.stop).toBe('done');
    expect(summary.events.caughtUp).toBe(true);
    const queued = await drainQueue(rig, state.queueUrl);
    expect(queued.map((r) => r.triggerId).sort()).toEqual(['trg_1', 'trg_2']);
  });
});
