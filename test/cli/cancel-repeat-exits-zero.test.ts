/**
 * A repeat `autopilot cancel` (a script retrying after a network blip, or a second operator) of a
 * request that is cancelled was refused "already cancelled" / "not held" with exit 1, where the
 * chat command's retry says "it was already taken: it is cancelled": the request is cancelled as
 * asked. It now exits 0 with "already cancelled (by X at T)" (or "by X, ended at T"), whether the first cancel is still
 * being ended (marked, held) or has ended; a request that is not held and was not cancelled (never
 * held, or ended otherwise) stays an error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { readAudit } from '../../src/state/audit.js';
import { markCancelled } from '../../src/state/held-gates.js';
import { captureIo } from '../helpers/cli-io.js';
import { type Bench, basePolicy, startBench } from '../worker/fixture.js';

let bench: Bench;
let cwd = '';

beforeAll(async () => {
  bench = await startBench();
  cwd = mkdtempSync(join(tmpdir(), 'autopilot-review-cancel-repeat-'));
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(basePolicy(bench.slack.origin)));
  // Outside office hours: held until Tuesday 09:00 UTC.
  bench.clock.now = new Date('2026-11-23T20:00:00Z');
  for (const n of [1, 2])
    await bench.send({ triggerId: `trg_${n}`, phaseId: 'ph_1', requestId: `night-${n}` });
  await bench.run(bench.worker(), await bench.receive());
  // In office hours: approved, never held.
  bench.clock.now = new Date('2026-11-24T10:00:00Z');
  await bench.send({ triggerId: 'trg_3', phaseId: 'ph_1', requestId: 'day-3' });
  await bench.run(bench.worker(), await bench.receive());
});
afterAll(async () => {
  await bench?.close();
});

function cli(user: string, at = '2026-11-23T20:30:00Z') {
  return captureIo({
    env: {
      STATE_TABLE_NAME: bench.table.tableName,
      AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
      USER: user,
    },
    cwd,
    now: () => new Date(at),
  });
}

describe('autopilot cancel of a request already cancelled', () => {
  it('exits 0 saying who cancelled it and when, once it has ended, for the same operator or another', async () => {
    const first = cli('alice');
    expect(await runCli(['cancel', 'night-1', '--reason', 'wrong build'], first.io), first.err()).toBe(0);
    for (const user of ['alice', 'bob']) {
      const again = cli(user, '2026-11-23T20:31:00Z');
      expect(await runCli(['cancel', 'night-1', '--reason', 'retry'], again.io), again.err()).toBe(0);
      expect(again.out()).toContain(
        'night-1 is already cancelled (by cli:alice, ended at 2026-11-23T20:30:00.000Z)',
      );
      expect(again.err()).toBe('');
    }
    // Nothing written a second time.
    expect((await readAudit(bench.table, 'night-1')).map((r) => r.result)).toEqual(['deferred', 'cancelled']);
  });

  it('exits 0 while the first cancel is recorded but not yet ended', async () => {
    await markCancelled(bench.table, 'night-2', {
      by: 'slack:U0ADMIN',
      at: '2026-11-23T20:10:00.000Z',
      reason: 'from chat',
    });
    const again = cli('alice');
    expect(await runCli(['cancel', 'night-2', '--reason', 'retry'], again.io), again.err()).toBe(0);
    expect(again.out()).toContain(
      'night-2 is already cancelled (by slack:U0ADMIN at 2026-11-23T20:10:00.000Z',
    );
  });

  it('stays an error for a request that is not held and was not cancelled', async () => {
    for (const id of ['day-3', 'never-sent']) {
      const t = cli('alice', '2026-11-24T10:30:00Z');
      expect(await runCli(['cancel', id, '--reason', 'no'], t.io)).toBe(1);
      expect(t.err()).toContain('not held');
      expect(t.out()).toBe('');
    }
  });
});
