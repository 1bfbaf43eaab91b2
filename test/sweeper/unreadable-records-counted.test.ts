/**
 * An events page element that is not a record (null, a string, a number, a list) reads as an
 * empty record since f11472a, kept in its place so that the walk goes on; no rule or exposure
 * reads it. But nothing says it happened: the run's summary line has no count of them and no
 * warning names them, so a platform serving broken entries (a serializer bug, a storage fault)
 * makes the sweeper pass events by silently. Rules that should have queued approvals do not,
 * exposures are not recorded (a config in use may look stale), and SweeperLag reads 0: an
 * operator asked "why did the rule not fire?" finds a clean run. The sweeper's handler over HTTP.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { sweeperHandler } from '../../src/sweeper/handler.js';
import {
  APPROVE_CANARY_RULE,
  freshState,
  makeSweeper,
  memoryLogger,
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

describe('events page elements that are not records', () => {
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

  it('are counted in the run summary and named by a warning', async () => {
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
      [{}],
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
    const { logger, lines } = memoryLogger();
    const sweeper = makeSweeper(rig, state, { policy, events: client.events, clock: () => NOW, logger });
    const summary = await sweeperHandler(sweeper)(
      { time: new Date(NOW).toISOString() },
      { getRemainingTimeInMillis: () => 60_000 },
    );
    expect(summary.stop).toBe('done');
    expect(summary.events.eventsRead).toBe(6);

    // Four of the six elements were not records: the summary line counts them...
    const line = lines.find((l) => l.message === 'sweeper run summary');
    expect(JSON.stringify(line?.summary), 'the summary line').toMatch(/"(unreadable|notRecords?)\w*":4/);
    // ...and a warning says what was passed by, for the operator to take to the platform.
    const warned = lines.filter((l) => l.level === 'warn').map((l) => String(l.message));
    expect(
      warned.some((m) => /not a record|unreadable|not an object/i.test(m)),
      warned.join('\n'),
    ).toBe(true);
  });
});
