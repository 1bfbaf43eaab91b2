/**
 * `autopilot policy replay` where no notifications channel is set: the worker denies every `ask`
 * (there is no one to ask), so the replay must decide the same way from what the record says of
 * the channel. Replaying the very policy that made the records reported each such denial as
 * `deny → ask`, a change that is not one. The audit trail is written by the real worker over
 * dynalite, on the bench's clock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readAudit, writeAudit } from '../../src/state/audit.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';
import { ciAsksAlways, replayReport } from './replay-run.js';

const bench = benchForFile();
/** The bench's policy with no notifications channel (and the worker has no secret naming one). */
let noChannel: PolicyInput;

async function decide(
  requestId: string,
  triggerId: string,
  source: 'ci' | 'schedule',
  id: string,
  at: string,
) {
  bench.clock.now = new Date(at);
  await bench.send({ triggerId, phaseId: 'ph_1', requestId, requestedBy: { source, id } });
  await bench.run(bench.worker({ policy: noChannel }), await bench.receive());
  return (await readAudit(bench.table, requestId))[0];
}

const replay = (policy: unknown) => replayReport(bench.table, policy);

beforeAll(async () => {
  const { notifications: _channel, ...rest } = basePolicy(bench.slack.origin);
  noChannel = rest;
  // Monday 2026-11-23 (UTC policy): schedules ask a human; CI is approved in office hours.
  const asked = await decide('nightly-1', 'trg_1', 'schedule', 'nightly', '2026-11-23T10:00:00Z');
  expect(asked).toMatchObject({ result: 'denied', rule: 'schedules ask a human' });
  expect(asked?.reason).toContain('no notifications channel');
  expect((await decide('deploy-1', 'trg_2', 'ci', 'deploy.yml', '2026-11-23T10:05:00Z'))?.result).toBe(
    'approved',
  );
}, 60_000);

describe('autopilot policy replay without a notifications channel', () => {
  it('reports no change when the same policy is replayed: an ask with no one to ask is denied, as the worker did', async () => {
    const report = await replay(noChannel);
    expect(report).toMatchObject({ replayed: 2, unchanged: 2, notReplayable: 0, changes: {}, rows: [] });
  });

  it('tells a new ask as the denial it would be, not as a question nobody could have seen', async () => {
    const report = await replay(ciAsksAlways(noChannel));
    expect(report.changes).toEqual({ 'approve → deny': 1 });
    expect(report.rows[0]).toMatchObject({
      requestId: 'deploy-1',
      new: { outcome: 'deny', rule: 'CI in office hours' },
    });
    expect(report.rows[0].new.reason).toContain('no notifications channel');
  });

  it('reads a record written before the channel was kept by what it says: denied for want of a channel', async () => {
    // The denial as a worker that did not yet keep `channel` in the inputs wrote it.
    const [recorded] = await readAudit(bench.table, 'nightly-1');
    if (!recorded?.inputs) throw new Error('the worker kept no inputs');
    const { channel: _kept, ...inputs } = recorded.inputs as typeof recorded.inputs & { channel?: boolean };
    await writeAudit(bench.table, {
      ...recorded,
      requestId: 'nightly-legacy',
      at: new Date(recorded.at),
      inputs,
    });
    const report = await replay(noChannel);
    expect(report).toMatchObject({ replayed: 3, unchanged: 3, changes: {}, rows: [] });
  });
});
