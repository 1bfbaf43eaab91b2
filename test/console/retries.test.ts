import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiAbortError,
  ApiConnectionError,
  ApiTimeoutError,
  AuthenticationError,
  backoffDelay,
  type ConsoleClientOptions,
  createConsoleClient,
  InternalServerError,
  parseRetryAfter,
  RateLimitError,
} from '../../src/console/index.js';
import { createManualClock } from './helpers/manual-clock.js';
import {
  closedPortUrl,
  ok,
  type ScriptedServer,
  SEGMENT,
  startScriptedServer,
} from './helpers/scripted-server.js';

let server: ScriptedServer;
let sleeps: number[];
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  sleeps = [];
});

const client = (extra: Partial<ConsoleClientOptions> = {}) =>
  createConsoleClient({
    baseUrl: server.url,
    apiKey: 'test-key',
    mutationBudget: false,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });

const TEAM = {
  name: 'Checkout',
  members: ['a@example.com'],
  admins: ['a@example.com'],
  defaultGateMetrics: [],
  defaultExperimentPrimaryMetrics: [],
  defaultExperimentSecondaryMetrics: [],
  defaultHoldoutMetrics: [],
  defaultTargetApplications: [],
  changeTeamConfigs: 'anyone' as const,
  reviewApproval: 'anyone' as const,
};

/** Fails `failures` times with `status`, then succeeds with `data`. */
const failThenOk = (
  failures: number,
  status: number,
  data: unknown,
  headers: Record<string, string> = {},
) => {
  const start = server.requests.length;
  server.setScript((_, i) => (i - start < failures ? { status, body: { message: 'x' }, headers } : ok(data)));
};

describe('retries of idempotent operations', () => {
  it.each([500, 502, 503, 408, 429])('retries a GET after %i and succeeds', async (status) => {
    failThenOk(2, status, SEGMENT);
    await expect(client().segments.get('seg_1')).resolves.toMatchObject({ id: 'seg_1' });
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries (default 2) with the last error', async () => {
    failThenOk(10, 503, SEGMENT);
    await expect(client().segments.get('seg_1')).rejects.toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(3);
  });

  it('takes maxRetries per call over the client default', async () => {
    failThenOk(10, 503, SEGMENT);
    await expect(client().segments.get('seg_1', { maxRetries: 0 })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    await expect(client({ maxRetries: 0 }).segments.get('seg_1', { maxRetries: 4 })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(server.requests).toHaveLength(1 + 5);
  });

  it('does not retry 400, 403 or 404', async () => {
    for (const status of [400, 403, 404]) {
      failThenOk(10, status, SEGMENT);
      await client()
        .segments.get('seg_1')
        .catch(() => undefined);
    }
    expect(server.requests).toHaveLength(3);
  });

  it('retries PUT, PATCH and the idempotent POSTs (disable groups, metric update) after a 5xx', async () => {
    const c = client({ maxRetries: 1 });
    failThenOk(1, 500, { id: 'x', name: 'r', permissions: {} });
    await c.releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' });
    failThenOk(1, 500, { id: 'x', name: 'r', permissions: {} });
    await c.roles.update('r', { permissions: { create_configs: true } });
    failThenOk(1, 500, { id: 'x' });
    await c.experiments.disableGroups('e', { group_names: ['test'] });
    failThenOk(1, 500, { id: 'x' });
    await c.metrics.update('m::sum', { isVerified: true });
    expect(server.requests.map((r) => r.method)).toEqual([
      'PUT',
      'PUT',
      'PATCH',
      'PATCH',
      'POST',
      'POST',
      'POST',
      'POST',
    ]);
  });

  it('retries a dropped connection', async () => {
    server.setScript((_, i) => (i === 0 ? 'destroy' : ok(SEGMENT)));
    await expect(client().segments.get('seg_1')).resolves.toMatchObject({ id: 'seg_1' });
    expect(server.requests).toHaveLength(2);
  });
});

describe('retries of creating POSTs (qualifying event, team)', () => {
  it('does not retry a 5xx: the team might exist already', async () => {
    failThenOk(1, 500, { name: 'Checkout' });
    await expect(client().teams.create(TEAM)).rejects.toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a dropped connection or a timeout after the request left', async () => {
    server.setScript(() => 'destroy');
    await expect(client().teams.create(TEAM)).rejects.toBeInstanceOf(ApiConnectionError);
    server.setScript(() => 'hang');
    await expect(
      // A timeout after the request left: 1 s lets it reach the server first on a loaded machine.
      client({ timeoutMs: 1_000 }).experiments.createQualifyingEvent({
        name: 'q',
        sql: 'select 1',
        timestampColumn: 'ts',
        idTypeMapping: [],
      }),
    ).rejects.toBeInstanceOf(ApiTimeoutError);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 429', async () => {
    failThenOk(1, 429, { name: 'Checkout' });
    await expect(client().teams.create(TEAM)).resolves.toMatchObject({ name: 'Checkout' });
    expect(server.requests).toHaveLength(2);
  });

  it('retries a failure before the request left (connection refused)', async () => {
    const baseUrl = await closedPortUrl();
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const error = await client({ baseUrl, fetch: counting })
      .teams.create(TEAM)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect((error as ApiConnectionError).requestSent).toBe(false);
    expect(calls).toBe(3);
  });
});

describe('waits between attempts', () => {
  it('backs off exponentially with full jitter when there is no Retry-After', async () => {
    failThenOk(2, 503, SEGMENT);
    await client().segments.get('seg_1');
    // random() = 0.5: half of 500 ms, then half of 1000 ms.
    expect(sleeps).toEqual([250, 500]);
  });

  it('computes full jitter as random(0, min(cap, base × 2^attempt))', () => {
    expect(backoffDelay(0, () => 0.999)).toBe(499);
    expect(backoffDelay(3, () => 0.5)).toBe(2_000);
    expect(backoffDelay(10, () => 0.5)).toBe(4_000);
    expect(backoffDelay(10, () => 0)).toBe(0);
  });

  it('honours Retry-After in seconds', async () => {
    failThenOk(1, 429, SEGMENT, { 'retry-after': '3' });
    await client().segments.get('seg_1');
    expect(sleeps).toEqual([3_000]);
  });

  it("does not retry at once on `Retry-After: 0` (a gateway's, never the platform's): it backs off", async () => {
    failThenOk(2, 429, SEGMENT, { 'retry-after': '0' });
    await client({ random: () => 0 }).segments.get('seg_1');
    expect(server.requests).toHaveLength(3);
    // Believed, both retries were sent with no wait at all, into the window that refused them.
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) expect(ms).toBeGreaterThanOrEqual(500);
  });

  it('honours Retry-After as an HTTP date', async () => {
    // The client's clock, not the machine's: the date is 20 s after the client's now.
    const now = Date.parse('2026-11-23T09:00:00Z');
    const at = new Date(now + 20_000).toUTCString();
    failThenOk(1, 429, SEGMENT, { 'retry-after': at });
    await client({ clock: createManualClock(now) }).segments.get('seg_1');
    expect(sleeps).toEqual([20_000]);
  });

  it('gives up at once when Retry-After is longer than maxRetryDelayMs (a sooner retry is refused again)', async () => {
    failThenOk(1, 429, SEGMENT, { 'retry-after': '3600' });
    await expect(client({ maxRetryDelayMs: 5_000 }).segments.get('seg_1')).rejects.toMatchObject({
      name: 'RateLimitError',
      attempts: 1,
    });
    expect(sleeps).toEqual([]);
    // Within the cap, it waits exactly as long as asked.
    failThenOk(1, 429, SEGMENT, { 'retry-after': '5' });
    await client({ maxRetryDelayMs: 5_000 }).segments.get('seg_1');
    expect(sleeps).toEqual([5_000]);
  });

  it('honours Retry-After on a 503', async () => {
    failThenOk(1, 503, SEGMENT, { 'retry-after': '2' });
    await client().segments.get('seg_1');
    expect(sleeps).toEqual([2_000]);
  });

  it('parses every Retry-After form and ignores nonsense', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': '0' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after': '1.5' }, now)).toBe(1_500);
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:10 GMT' }, now)).toBe(10_000);
    expect(parseRetryAfter({ 'retry-after': 'Wed, 31 Dec 2025 00:00:00 GMT' }, now)).toBe(0);
    expect(parseRetryAfter({ 'retry-after-ms': '250' }, now)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
    // The other two HTTP-date forms, and a header sent twice (fetch joins them with ", ").
    expect(parseRetryAfter({ 'retry-after': 'Thursday, 01-Jan-26 00:00:10 GMT' }, now)).toBe(10_000);
    expect(parseRetryAfter({ 'retry-after': 'Thu Jan  1 00:00:10 2026' }, now)).toBe(10_000);
    expect(parseRetryAfter({ 'retry-after': '5, 5' }, now)).toBe(5_000);
    expect(parseRetryAfter({ 'retry-after-ms': '250, 250' }, now)).toBe(250);
    const date = 'Thu, 01 Jan 2026 00:00:10 GMT';
    expect(parseRetryAfter({ 'retry-after': `${date}, ${date}` }, now)).toBe(10_000);
    // Not a delay and not an HTTP date: unreadable (backoff applies), never "retry at once".
    for (const nonsense of ['-1', '12 13', '1 2026', 'x5']) {
      expect(parseRetryAfter({ 'retry-after': nonsense }, now), nonsense).toBeUndefined();
    }
  });
});

describe('timeouts and the deadline', () => {
  it('ends a hanging attempt with ApiTimeoutError', async () => {
    server.setScript(() => 'hang');
    await expect(client({ timeoutMs: 100, maxRetries: 0 }).segments.get('seg_1')).rejects.toBeInstanceOf(
      ApiTimeoutError,
    );
  });

  it('bounds an attempt by the deadline when it is nearer than timeoutMs', async () => {
    server.setScript(() => 'hang');
    const error = await client({ timeoutMs: 60_000, maxRetries: 5 })
      .segments.get('seg_1', { deadline: Date.now() + 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect((error as Error).message).toContain('deadline');
    // One attempt at most: no retry is started once the deadline is spent.
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });

  it('does not make a retry whose wait would pass the deadline', async () => {
    failThenOk(5, 429, SEGMENT, { 'retry-after': '5' });
    const error = await client()
      .segments.get('seg_1', { deadline: Date.now() + 2_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('makes no request once the deadline has passed', async () => {
    failThenOk(0, 200, SEGMENT);
    await expect(client().segments.get('seg_1', { deadline: Date.now() - 1 })).rejects.toBeInstanceOf(
      ApiTimeoutError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('stops at once when the caller aborts', async () => {
    const controller = new AbortController();
    // Aborted once the server holds the request, not after a fixed time: on a loaded machine a
    // timer fired before the request arrived (none counted here, and the late one landed in the
    // next test's log).
    server.setScript(() => {
      controller.abort();
      return 'hang';
    });
    const pending = client().segments.get('seg_1', { signal: controller.signal });
    await expect(pending).rejects.toBeInstanceOf(ApiAbortError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('the key provider', () => {
  it('asks the provider once more after a 401 and retries once with the new key', async () => {
    const keys = ['old-key', 'new-key'];
    const contexts: unknown[] = [];
    let asked = 0;
    server.setScript((req) =>
      req.headers['service-api-key'] === 'new-key'
        ? ok(SEGMENT)
        : { status: 401, body: { message: 'bad key' } },
    );
    const c = client({
      maxRetries: 0,
      apiKey: async (context) => {
        contexts.push(context);
        return keys[Math.min(asked++, 1)] as string;
      },
    });
    await expect(c.segments.get('seg_1')).resolves.toMatchObject({ id: 'seg_1' });
    expect(asked).toBe(2);
    expect(contexts).toEqual([{ afterUnauthorized: false }, { afterUnauthorized: true }]);
    expect(server.requests.map((r) => r.headers['service-api-key'])).toEqual(['old-key', 'new-key']);
  });

  it('gives up with AuthenticationError when the new key is refused too', async () => {
    let asked = 0;
    server.setScript(() => ({ status: 401, body: { message: 'bad key' } }));
    const c = client({ apiKey: () => `key-${++asked}` });
    await expect(c.segments.get('seg_1')).rejects.toBeInstanceOf(AuthenticationError);
    expect(asked).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('does not repeat a 401 for a fixed string key', async () => {
    server.setScript(() => ({ status: 401, body: { message: 'bad key' } }));
    await expect(client().segments.get('seg_1')).rejects.toBeInstanceOf(AuthenticationError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a reused connection that drops after the server read the request', () => {
  // The server reads the request, then destroys the socket: a reset on a reused keep-alive
  // connection, which usually means "closed while idle" but here came after the request arrived.
  const dropSecond = () =>
    server.setScript((_request, index) => (index === 1 ? 'destroy' : ok({ name: 'r', permissions: {} })));

  it('never sends a create again (it may have been made)', async () => {
    dropSecond();
    const c = client();
    await c.roles.get('r'); // opens the connection the create reuses
    const error = await c.experiments
      .createQualifyingEvent({ name: 'purchases', sql: 'select 1', timestampColumn: 'ts', idTypeMapping: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error).toMatchObject({ requestSent: true, attempts: 1 });
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('sends anything else again, and counts that send as an attempt', async () => {
    server.setScript((_request, index) =>
      index === 1
        ? 'destroy'
        : index === 2
          ? { status: 500, body: { status: 500, message: 'boom' } }
          : ok({ name: 'r', permissions: {} }),
    );
    const c = client({ maxRetries: 0 });
    await c.roles.get('r');
    const error = await c.releasePipelineTriggers
      .approve('trg_1', { phaseID: 'ph_2' })
      .catch((e: unknown) => e);
    expect(server.requests.slice(1).map((r) => r.method)).toEqual(['PUT', 'PUT']);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ attempts: 2 });
  });
});

describe('a 429 whose Retry-After exceeds maxRetryDelayMs (a 15-minute window asks for minutes)', () => {
  it.each([
    ['segments.get (GET)', () => client().segments.get('seg_1')],
    [
      'releasePipelineTriggers.approve (PUT)',
      () => client().releasePipelineTriggers.approve('trg_1', { phaseID: 'ph_1' }),
    ],
  ])('%s: no request is sent again before Retry-After has passed', async (_name, call) => {
    server.setScript(() => ({
      status: 429,
      headers: { 'retry-after': '120' },
      body: { status: 429, message: 'Too many requests.' },
    }));
    await expect(call()).rejects.toBeInstanceOf(RateLimitError);
    // Waits (ms) after which a request was sent again although Retry-After had not passed.
    const earlyRetryWaits = server.requests.length > 1 ? sleeps.filter((ms) => ms < 120_000) : [];
    expect(earlyRetryWaits).toEqual([]);
  });
});
