/**
 * The sandbox is a reading of the spec, and the tests that run against it prove only what it
 * holds: a rule it invented made them prove a wrong thing. It refused an empty `idTypeMapping`
 * (spec 4.4 requires the field and says nothing of its length), a `table` source without
 * `tableName` (spec 4.4: besides name, sql, timestampColumn and idTypeMapping "the rest are
 * optional"), and e-mail addresses zod's `email()` refuses though they are addresses (a punycode
 * top-level domain, `&` in the local part; spec 2.11 and 4.5 say only "e-mail addresses" and
 * `email: string`). The client sends all of these; the sandbox now takes them, over HTTP.
 *
 * Kept, with their reasons: a mutation the sandbox refuses with 400 or 404 still counts against
 * the rate limit (FACTS.md: the platform limits mutations per project, and the client's budget
 * counts every mutation it sends, whatever the answer; counting them keeps the tests from proving
 * a budget the platform might not grant); a member address with no `@` is still refused (spec:
 * members and admins are e-mail addresses).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BadRequestError, createConsoleClient } from '../../src/console/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { call, NOW } from './helpers.js';

let running: RunningSandbox;
beforeAll(async () => {
  running = await startSandbox({ rateLimits: false });
});
afterAll(() => running.close());
beforeEach(() => running.sandbox.reset());

const client = () =>
  createConsoleClient({ baseUrl: running.url, apiKey: 'sandbox-key', mutationBudget: false, maxRetries: 0 });

const team = (members: string[]) => ({
  name: `Payments ${members.join(' ')}`,
  members,
  admins: members,
  defaultGateMetrics: [],
  defaultExperimentPrimaryMetrics: [],
  defaultExperimentSecondaryMetrics: [],
  defaultHoldoutMetrics: [],
  defaultTargetApplications: [],
  changeTeamConfigs: 'anyone' as const,
  reviewApproval: 'anyone' as const,
});

describe('the sandbox refuses nothing the spec allows', () => {
  it('creates a qualifying event with an empty idTypeMapping', async () => {
    const created = await client().experiments.createQualifyingEvent({
      name: 'unmapped',
      sql: 'select 1',
      timestampColumn: 'ts',
      idTypeMapping: [],
    });
    expect(created).toMatchObject({ name: 'unmapped', idTypeMapping: [] });
  });

  it('creates a table source without a tableName', async () => {
    const created = await client().experiments.createQualifyingEvent({
      name: 'orders_table',
      sql: 'select * from orders',
      timestampColumn: 'ts',
      idTypeMapping: [{ serviceUnitID: 'userID', column: 'user_id' }],
      sourceType: 'table',
    });
    expect(created).toMatchObject({ name: 'orders_table', sourceType: 'table' });
  });

  it.each([
    ['a punycode top-level domain', 'ivan@xn--e1afmkfd.xn--p1ai'],
    ['an ampersand in the local part', 'r&d@example.com'],
  ])('creates a team whose members have %s', async (_, address) => {
    const created = await client().teams.create(team([address]));
    expect(created.members?.[0]).toMatchObject({ email: address });
  });

  it('takes a metric owner whose e-mail has a punycode top-level domain', async () => {
    const [metric] = [...running.sandbox.state.metrics.keys()];
    const updated = await client().metrics.update(String(metric), {
      owner: { email: 'ivan@xn--e1afmkfd.xn--p1ai', ownerID: 'usr_2' },
    });
    expect(updated.id).toBe(metric);
  });

  it('still refuses a member that is no e-mail address at all', async () => {
    const refused = await call(running.sandbox, 'POST', '/console/v1/users/teams', team(['not-an-address']));
    expect(refused.status).toBe(400);
    await expect(
      client().metrics.update(String([...running.sandbox.state.metrics.keys()][0]), {
        owner: { email: 'nobody', ownerID: 'usr_2' },
      }),
    ).rejects.toBeInstanceOf(BadRequestError);
  });
});

describe('kept: a refused mutation counts against the rate limit', () => {
  it('counts a 400 and a 404 like any mutation the platform received', async () => {
    const { createSandbox } = await import('../../src/sandbox/index.js');
    const s = createSandbox({ now: () => NOW, rateLimits: { limits: [{ max: 2, perMs: 1000 }] } });
    expect((await call(s, 'PATCH', '/console/v1/roles/member', { permissions: { nope: true } })).status).toBe(
      400,
    );
    expect((await call(s, 'PATCH', '/console/v1/roles/no_such_role', { permissions: {} })).status).toBe(404);
    expect((await call(s, 'PATCH', '/console/v1/roles/member', { permissions: {} })).status).toBe(429);
  });
});
