/**
 * `autopilot policy replay --since` in the middle of an hour or a day: the worker counted the
 * approvals made earlier in that hour (maxPerHour) or day (maxPerDay), so the replay counts them
 * too. Replaying the deployed policy itself must then change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { policyReplayCommand } from '../../src/cli/policy-replay.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readAudit } from '../../src/state/audit.js';
import { type Bench, basePolicy, startBench } from '../worker/fixture.js';

let bench: Bench;
let policy: PolicyInput;

async function decide(request: Record<string, unknown>, at: string) {
  bench.clock.now = new Date(at);
  await bench.send({ requestedAt: at, ...request });
  await bench.run(bench.worker({ policy }), await bench.receive());
}

function seedConfig(id: string) {
  const model = bench.api.sandbox.state.configs.get('feature_tour');
  if (!model) throw new Error('the sandbox seeds feature_tour');
  bench.api.sandbox.state.configs.set(id, { ...structuredClone(model), id, archived: false });
}

async function replay(since: string) {
  const out: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: () => {},
    env: {},
    cwd: '/',
    now: () => new Date('2026-11-30T00:00:00Z'),
  };
  const code = await policyReplayCommand(['--policy', 'new.json', '--since', since, '--json'], io, {
    read: () => JSON.stringify(policy),
    table: bench.table,
  });
  expect(code).toBe(0);
  return JSON.parse(out.join('\n'));
}

beforeAll(async () => {
  bench = await startBench();
  policy = basePolicy(bench.slack.origin);
  const archive = policy.actions?.archive_config;
  if (archive) archive.maxPerDay = 1;
  // Monday 2026-11-23 (UTC policy). "limited CI" approves once per hour.
  const limited = { phaseId: 'ph_1', requestedBy: { source: 'ci', id: 'limited' } };
  await decide({ ...limited, triggerId: 'trg_3', requestId: 'limited-1' }, '2026-11-23T10:10:00Z');
  await decide({ ...limited, triggerId: 'trg_4', requestId: 'limited-2' }, '2026-11-23T10:20:00Z');
  // archive_config: one a day.
  seedConfig('feature_tour#one');
  seedConfig('feature_tour#two');
  const archive1 = { action: 'archive_config', reason: 'unused', force: true };
  const nightly = { source: 'schedule', id: 'nightly-cleanup' };
  await decide(
    { ...archive1, configId: 'feature_tour#one', requestedBy: nightly, requestId: 'archive-1' },
    '2026-11-23T08:00:00Z',
  );
  await decide(
    { ...archive1, configId: 'feature_tour#two', requestedBy: nightly, requestId: 'archive-2' },
    '2026-11-23T14:00:00Z',
  );
}, 60_000);
afterAll(async () => {
  await bench?.close();
});

describe('autopilot policy replay --since inside a counter window', () => {
  it('the worker used up the hour and the day, then deferred', async () => {
    const results = async (id: string) => (await readAudit(bench.table, id)).map((r) => r.result);
    expect(await results('limited-1')).toEqual(['approved']);
    expect((await results('limited-2'))[0]).toBe('deferred');
    expect(await results('archive-1')).toEqual(['archived']);
    expect((await results('archive-2'))[0]).toBe('deferred');
  });

  it('counts the hour’s earlier approval: the same policy still defers the second request', async () => {
    const report = await replay('2026-11-23T10:15:00Z');
    expect(report.rows).toEqual([]);
    expect(report.changes).toEqual({});
    // limited-2 and archive-2 are reported; limited-1 and archive-1, from the same day, only counted.
    expect(report).toMatchObject({ replayed: 2, unchanged: 2, countedBefore: 2 });
    expect(report.countedFrom).toBe('2026-11-23T00:00:00.000Z');
  });

  it('counts the day’s earlier archive: the same policy still defers the second archive', async () => {
    const report = await replay('2026-11-23T12:00:00Z');
    expect(report.changes).toEqual({});
    expect(report.rows).toEqual([]);
    expect(report).toMatchObject({ replayed: 1, unchanged: 1, countedBefore: 3 });
  });
});
