/**
 * `autopilot policy replay` against a table whose audit history the real worker wrote (injected
 * clock): a reorder of rules changes some outcomes and not others, the new policy's counters are
 * rebuilt from the replayed approvals, records written before inputs were kept count as not
 * replayable, and the command only ever scans.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { sinceInstant } from '../../src/cli/durations.js';
import type { CliIo } from '../../src/cli/io.js';
import { policyReplayCommand } from '../../src/cli/policy-replay.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readAudit, writeAudit } from '../../src/state/audit.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';

type RuleInput = { name: string; maxPerHour?: number };
type EditablePolicy = PolicyInput & { approvals: { rules: RuleInput[] } };

const bench = benchForFile();
let old: EditablePolicy;
const clone = () => structuredClone(old);
/** The old policy with "CI in office hours" moved first: it then matches ci:blocked and ci:limited too. */
function officeHoursFirst(): EditablePolicy {
  const policy = clone();
  const rules = policy.approvals.rules;
  const [moved] = rules.splice(
    rules.findIndex((r) => r.name === 'CI in office hours'),
    1,
  );
  if (moved) rules.unshift(moved);
  return policy;
}
const sent: string[] = [];

async function decide(requestId: string, requester: string, triggerId: string, at: string) {
  bench.clock.now = new Date(at);
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestId,
    requestedBy: { source: 'ci', id: requester },
    requestedAt: at,
  });
  const event = await bench.receive();
  await bench.run(bench.worker(), event);
}

beforeAll(async () => {
  old = basePolicy(bench.slack.origin) as EditablePolicy;
  // Monday 2026-11-23 (UTC policy): office hours 09:00–17:00.
  await decide('deploy-in-hours', 'deploy.yml', 'trg_1', '2026-11-23T10:00:00Z');
  await decide('blocked', 'blocked', 'trg_2', '2026-11-23T10:05:00Z');
  await decide('limited-1', 'limited', 'trg_3', '2026-11-23T10:10:00Z');
  await decide('limited-2', 'limited', 'trg_4', '2026-11-23T10:20:00Z');
  await decide('deploy-at-night', 'deploy.yml', 'trg_5', '2026-11-23T20:00:00Z');
  // A record from before decisions kept their inputs: nothing to decide it again with.
  await writeAudit(bench.table, {
    requestId: 'legacy',
    at: new Date('2026-11-23T09:00:00Z'),
    action: 'approve_phase',
    target: 'trigger trg_9 phase ph_1',
    effectKey: 'approve_phase#trg_9#ph_1',
    requester: 'ci:deploy.yml',
    rule: 'CI in office hours',
    reason: 'old',
    result: 'approved',
    dryRun: false,
  });
  sent.push(
    ...(await Promise.all(
      ['deploy-in-hours', 'blocked', 'limited-1', 'limited-2'].map(
        async (id) => (await readAudit(bench.table, id))[0]?.result ?? '',
      ),
    )),
  );
}, 60_000);

async function replay(policy: unknown, ...args: string[]) {
  const out: string[] = [];
  const commands: string[] = [];
  const client = bench.table.client;
  const watched = {
    send: (command: { constructor: { name: string } }) => {
      commands.push(command.constructor.name);
      return (client.send as (c: unknown) => Promise<unknown>)(command);
    },
  } as unknown as DynamoDBClient;
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: () => {},
    env: {},
    cwd: '/',
    now: () => new Date('2026-11-30T00:00:00Z'),
  };
  const code = await policyReplayCommand(['--policy', 'new.json', ...args], io, {
    read: () => JSON.stringify(policy),
    table: { client: watched, tableName: bench.table.tableName },
  });
  return { code, out: out.join('\n'), commands };
}

describe('autopilot policy replay', () => {
  it('recorded what the worker decided', () => {
    expect(sent).toEqual(['approved', 'denied', 'approved', 'deferred']);
  });

  it('changes nothing under the same policy, and counts legacy records as not replayable', async () => {
    const { code, out } = await replay(old, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(out);
    expect(report).toMatchObject({ replayed: 5, unchanged: 5, notReplayable: 1, changes: {}, rows: [] });
  });

  it('shows which outcomes a reorder of rules changes and which it leaves alone', async () => {
    const { out } = await replay(officeHoursFirst(), '--json');
    const report = JSON.parse(out);
    expect(report.replayed).toBe(5);
    expect(report.changes).toEqual({
      'deny → approve': 1,
      'approve → approve (another rule)': 1,
      'defer → approve': 1,
    });
    const row = (id: string) => report.rows.find((r: { requestId: string }) => r.requestId === id);
    expect(row('blocked')).toMatchObject({
      old: { outcome: 'deny', rule: 'blocked CI is denied' },
      new: { outcome: 'approve', rule: 'CI in office hours' },
    });
    // limited-2 was held back by its rule's cap (1 an hour); office hours have no cap.
    expect(row('limited-2')).toMatchObject({ old: { outcome: 'defer' }, new: { outcome: 'approve' } });
    expect(row('limited-1')).toMatchObject({ new: { outcome: 'approve', rule: 'CI in office hours' } });
    // Unchanged: the in-hours deploy, and the night deploy still waits for the window.
    expect(row('deploy-in-hours')).toBeUndefined();
    expect(row('deploy-at-night')).toBeUndefined();
  });

  it("rebuilds the new policy's counters from the replayed approvals", async () => {
    const capped = officeHoursFirst();
    const inHours = capped.approvals.rules[0];
    if (inHours) inHours.maxPerHour = 2;
    const report = JSON.parse((await replay(capped, '--json')).out);
    const row = (id: string) => report.rows.find((r: { requestId: string }) => r.requestId === id);
    // 10:00 and 10:05 fill the cap of 2 an hour; 10:10 and 10:20 now wait for the next hour.
    expect(row('blocked')).toMatchObject({ new: { outcome: 'approve' } });
    expect(row('limited-1')).toMatchObject({ old: { outcome: 'approve' }, new: { outcome: 'defer' } });
    // Deferred before by its own rule's cap, deferred again, now by the office-hours cap.
    expect(row('limited-2')).toMatchObject({
      old: { outcome: 'defer', rule: 'limited CI' },
      new: { outcome: 'defer', rule: 'CI in office hours' },
    });
    expect(report.changes['defer → defer (another rule)']).toBe(1);
  });

  it('prints counts and a table for people', async () => {
    const reordered = clone();
    reordered.approvals.rules.reverse();
    const { out } = await replay(reordered);
    expect(out).toMatch(
      /Replayed 5 decision\(s\) since 2026-10-31T00:00:00.000Z under new.json: \d+ unchanged, \d+ changed, 1 not replayable/,
    );
    expect(out).toContain('deny → approve: 1');
    expect(out).toContain('blocked');
  });

  it('only reads: every command it sends is a Scan', async () => {
    const { commands } = await replay(old);
    expect(commands.length).toBeGreaterThan(0);
    expect(new Set(commands)).toEqual(new Set(['ScanCommand']));
  });

  it('reads --since as a duration or an instant, and refuses anything else', () => {
    const now = new Date('2026-11-30T00:00:00Z');
    expect(sinceInstant('24h', now).toISOString()).toBe('2026-11-29T00:00:00.000Z');
    expect(sinceInstant('2026-11-23T10:15:00Z', now).toISOString()).toBe('2026-11-23T10:15:00.000Z');
    expect(() => sinceInstant('last week', now)).toThrow(/--since/);
  });

  it('replays only what happened since --since', async () => {
    const reordered = clone();
    reordered.approvals.rules.reverse();
    const report = JSON.parse((await replay(reordered, '--since', '2026-11-23T10:15:00Z', '--json')).out);
    expect(report.replayed).toBe(2);
    expect(report.notReplayable).toBe(0);
  });
});

/** Audit records as the worker writes them, replayed without a table: the pure `replayDecisions`. */
describe('replayDecisions', () => {
  const UTC_HOURLY = (limit: number) =>
    parsePolicy({
      version: 1,
      timezone: 'UTC',
      approvals: {
        rules: [{ name: 'CI', when: { requesters: ['ci:*'] }, decision: 'approve', maxPerHour: limit }],
      },
    });
  const running = { paused: false };
  /** A recorded approve_phase decision of request `id` at `at` (its request made at `requestedAt`). */
  const record = (
    id: string,
    at: string,
    result: string,
    rule: string,
    { requestedAt = at, dryRun }: { requestedAt?: string; dryRun?: boolean } = {},
  ): RecordedDecision => {
    const request: ActionRequest = {
      version: 1,
      action: 'approve_phase',
      triggerId: `trg_${id}`,
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'deploy.yml' },
      requestedAt,
      requestId: id,
      ...(dryRun === undefined ? {} : { dryRun }),
    };
    return {
      requestId: id,
      at,
      action: 'approve_phase',
      target: `trigger trg_${id} phase ph_1`,
      requester: 'ci:deploy.yml',
      rule,
      result,
      inputs: { request, now: at, pause: running },
    };
  };

  it('takes no unit of maxPerHour for a dry-run approval, as the worker takes none', () => {
    const report = replayDecisions(UTC_HOURLY(1), [
      record('dry', '2026-11-23T10:00:00.000Z', 'would-mutate', 'CI', { dryRun: true }),
      record('real', '2026-11-23T10:10:00.000Z', 'approved', 'CI'),
    ]);
    expect(report).toMatchObject({ replayed: 2, unchanged: 2, rows: [] });
  });

  it('counts a request decided twice (deferred, then approved) once when the new policy approves it at once', () => {
    const report = replayDecisions(UTC_HOURLY(2), [
      record('A', '2026-11-23T10:05:00.000Z', 'deferred', 'old', { requestedAt: '2026-11-23T10:05:00.000Z' }),
      record('A', '2026-11-23T10:30:00.000Z', 'approved', 'old', { requestedAt: '2026-11-23T10:05:00.000Z' }),
      record('B', '2026-11-23T10:40:00.000Z', 'approved', 'CI'),
    ]);
    // A is approved at its first record; its later record would never have happened, and B still fits the cap of 2.
    expect(report.rows.map((r) => [r.requestId, r.old.outcome, r.new.outcome])).toEqual([
      ['A', 'defer', 'approve'],
    ]);
    expect(report).toMatchObject({ replayed: 2, unchanged: 1, alreadyEnded: 1 });
  });

  it('reports that switching sweeper.staleConfigs.dryRun off would start real archives', () => {
    const policy = parsePolicy({
      version: 1,
      timezone: 'UTC',
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { staleConfigs: { configs: ['old_banner'], dryRun: false } },
    });
    const at = '2026-11-23T10:00:00.000Z';
    const request: ActionRequest = {
      version: 1,
      action: 'archive_config',
      configId: 'old_banner',
      reason: 'No exposures for 30 days',
      requestedBy: { source: 'schedule', id: 'stale-configs' },
      requestedAt: at,
      requestId: 'sweep-1',
    };
    const report = replayDecisions(policy, [
      {
        requestId: 'sweep-1',
        at,
        action: 'archive_config',
        target: 'config old_banner',
        requester: 'schedule:stale-configs',
        rule: 'actions.archive_config',
        result: 'would-mutate',
        inputs: { request, now: at, pause: running },
      },
    ]);
    expect(report.unchanged).toBe(0);
    expect(report.changes).toEqual({ 'approve (dry run) → approve': 1 });
    expect(report.rows[0]).toMatchObject({
      old: { outcome: 'approve', dryRun: true },
      new: { outcome: 'approve', dryRun: false },
    });
  });
});
