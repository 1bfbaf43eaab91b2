/**
 * `autopilot policy replay` following a deferral: the real worker approved two CI releases at
 * 10:00 and 10:10 on a Monday; a new policy opening office hours at 11:00 defers both, and the
 * replay tells, in its counts, its table and `--json`, that they would have gone out at 11:00,
 * an hour and fifty minutes later. The audit trail is written by the real worker over the
 * emulators, on the bench's clock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readAudit } from '../../src/state/audit.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';
import { runReplay } from './replay-run.js';

const bench = benchForFile();

async function decide(requestId: string, triggerId: string, at: string) {
  bench.clock.now = new Date(at);
  await bench.send({ triggerId, phaseId: 'ph_1', requestId, requestedAt: at });
  await bench.run(bench.worker(), await bench.receive());
  return (await readAudit(bench.table, requestId))[0];
}

/** The old policy with office hours from 11:00. */
function officeHoursFrom11(): PolicyInput {
  const policy = basePolicy(bench.slack.origin);
  for (const rule of policy.approvals?.rules ?? []) {
    if (rule.name === 'CI in office hours' && rule.windows?.[0]) rule.windows[0].start = '11:00';
  }
  return policy;
}

beforeAll(async () => {
  // Monday 2026-11-23 (UTC policy): office hours 09:00–17:00.
  expect(await decide('deploy-10', 'trg_1', '2026-11-23T10:00:00Z')).toMatchObject({ result: 'approved' });
  expect(await decide('deploy-10-10', 'trg_3', '2026-11-23T10:10:00Z')).toMatchObject({ result: 'approved' });
}, 60_000);

describe('autopilot policy replay follows a new deferral', () => {
  it('counts the deferred-then-approved releases with their delays, and shows each row’s end in a column of its own', async () => {
    const out = await runReplay(bench.table, officeHoursFrom11(), { json: false });
    expect(out).toContain('approve → defer → approve: 2 (after 50m – 1h)');
    const row = (id: string) => out.split('\n').find((line) => line.startsWith(`${id} `)) ?? '';
    expect(out).toContain('in the end');
    expect(row('deploy-10')).toMatch(
      /defer \(CI in office hours\) +approve after 1h \(CI in office hours\)$/,
    );
    expect(row('deploy-10-10')).toMatch(
      /defer \(CI in office hours\) +approve after 50m \(CI in office hours\)$/,
    );
  });

  it('says the same in --json', async () => {
    const report = JSON.parse(await runReplay(bench.table, officeHoursFrom11(), { json: true }));
    expect(report.changes).toEqual({ 'approve → defer → approve': 2 });
    expect(report.delays).toEqual({
      'approve → defer → approve': { shortestMs: 3_000_000, longestMs: 3_600_000 },
    });
    const row = report.rows.find((r: { requestId: string }) => r.requestId === 'deploy-10');
    expect(row).toMatchObject({
      old: { outcome: 'approve' },
      new: { outcome: 'defer', rule: 'CI in office hours' },
      followed: { outcome: 'approve', at: '2026-11-23T11:00:00.000Z', afterMs: 3_600_000, looks: 1 },
    });
  });
});
