/**
 * `npx autopilot held` and `npx autopilot cancel` against the state table the real worker
 * writes (dynalite, injected clock): what is held, and a cancel that goes through the policy.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { captureIo } from '../helpers/cli-io.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';

const bench = benchForFile();
let cwd = '';
const MONDAY_EVENING = new Date('2026-11-23T20:00:00Z');

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'autopilot-held-'));
  const policy = basePolicy(bench.slack.origin);
  policy.approvals?.rules?.unshift({
    name: 'mallory may not',
    when: { requesters: ['ci:cli:mallory'] },
    decision: 'deny',
  });
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(policy));
  const worker = bench.worker();
  // Two CI requests outside office hours: held until Tuesday 09:00 UTC.
  bench.clock.now = MONDAY_EVENING;
  for (const n of [1, 2])
    await bench.send({ triggerId: `trg_${n}`, phaseId: 'ph_1', requestId: `night-${n}` });
  await bench.run(worker, await bench.receive());
});

function io(env: Record<string, string> = {}) {
  return captureIo({
    env: {
      STATE_TABLE_NAME: bench.table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
      ...env,
    },
    cwd,
    now: () => new Date('2026-11-23T20:30:00Z'),
  });
}

describe('autopilot held', () => {
  it('lists every held request with why it waits and its next look, as a table and as JSON', async () => {
    const table = io();
    expect(await runCli(['held'], table.io)).toBe(0);
    expect(table.out()).toMatch(
      /night-1 +approve_phase +trigger trg_1 phase ph_1 +ci:github-actions\/deploy.yml +window +2026-11-24T09:00:00.000Z/,
    );
    expect(table.out()).toContain('2 held.');
    const json = io();
    expect(await runCli(['held', '--json'], json.io)).toBe(0);
    const list = JSON.parse(json.out()) as Array<Record<string, unknown>>;
    expect(list.map((h) => [h.requestId, h.why, h.nextLook])).toEqual([
      ['night-1', 'window', '2026-11-24T09:00:00.000Z'],
      ['night-2', 'window', '2026-11-24T09:00:00.000Z'],
    ]);
    expect(list[0]).not.toHaveProperty('request');
  });
});

describe('autopilot cancel', () => {
  it('refuses a canceller the policy denies, and a call without a reason', async () => {
    const blocked = io();
    expect(await runCli(['cancel', 'night-1', '--reason', 'no', '--as', 'mallory'], blocked.io)).toBe(1);
    expect(blocked.err()).toContain(
      'the policy denies approve_phase to ci:cli:mallory (rule mallory may not',
    );
    const noReason = io({ USER: 'alice' });
    expect(await runCli(['cancel', 'night-1'], noReason.io)).toBe(2);
    expect(noReason.err()).toContain('--reason');
    expect((await listHeld(bench.table)).map((h) => h.requestId)).toEqual(['night-1', 'night-2']);
  });

  it('cancels one held request as cli:<user>: final, audited, gone from the list, told to the channel', async () => {
    const t = io({ USER: 'alice', SLACK_WEBHOOK_URL: `${bench.slack.origin}/services/cli-channel` });
    expect(await runCli(['cancel', 'night-2', '--reason', 'superseded by night-1'], t.io)).toBe(0);
    expect(t.out()).toContain('Cancelled night-2');
    expect(await readFinal(bench.table, 'night-2')).toMatchObject({ result: 'cancelled', rule: 'cancel' });
    const audit = await readAudit(bench.table, 'night-2');
    expect(audit.map((r) => r.result)).toEqual(['deferred', 'cancelled']);
    expect(audit[1]?.reason).toContain('cancelled by cli:alice (“superseded by night-1”)');
    expect((await listHeld(bench.table)).map((h) => h.requestId)).toEqual(['night-1']);
    expect(bench.slack.posts.filter((p) => p.path === '/services/cli-channel')).toHaveLength(1);
    // A repeat is done as asked (a script's retry): said so, nothing written again.
    const again = io({ USER: 'alice' });
    expect(await runCli(['cancel', 'night-2', '--reason', 'again'], again.io)).toBe(0);
    expect(again.out()).toContain('night-2 is already cancelled (by cli:alice');
    expect(await readAudit(bench.table, 'night-2')).toHaveLength(2);
    const unknown = io({ USER: 'alice' });
    expect(await runCli(['cancel', 'night-9', '--reason', 'again'], unknown.io)).toBe(1);
    expect(unknown.err()).toContain('not held');
  });
});
