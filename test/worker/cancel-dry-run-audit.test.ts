/**
 * A held dry-run request that is cancelled leaves the same audit record whoever ends it: the
 * worker after a Slack cancel, `autopilot cancel`, or the tick ending a stuck cancelled wait
 * (`dryRun: false`: a cancel changes nothing, dry run or not).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stepLine } from '../../src/audit/story.js';
import { runCli } from '../../src/cli/run.js';
import { mayCancel } from '../../src/policy/cancel-grant.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit, readFinal } from '../../src/state/audit.js';
import { holdRequest, listHeld } from '../../src/state/held.js';
import { heldAccess } from '../../src/webhook/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { captureIo } from '../helpers/cli-io.js';
import { basePolicy, benchForFile } from './fixture.js';
import { releaseDeps } from './questions.js';

const bench = benchForFile();
let cwd = '';
const MONDAY_EVENING = new Date('2026-11-23T20:00:00Z');

beforeAll(async () => {
  cwd = mkdtempSync(join(tmpdir(), 'review-dry-cancel-'));
  writeFileSync(join(cwd, 'policy.json'), JSON.stringify(basePolicy(bench.slack.origin)));
  // Two dry-run CI requests outside office hours: each held until Tuesday 09:00 UTC.
  bench.clock.now = MONDAY_EVENING;
  for (const n of [1, 2])
    await bench.send({ triggerId: `trg_${n}`, phaseId: 'ph_1', requestId: `dry-${n}`, dryRun: true });
  await bench.run(bench.worker(), await bench.receive());
  expect((await listHeld(bench.table)).map((h) => h.requestId).sort()).toEqual(['dry-1', 'dry-2']);
});

async function cancelledStep(requestId: string) {
  const audit = await readAudit(bench.table, requestId);
  const step = audit.find((r) => r.result === 'cancelled');
  expect(step).toBeDefined();
  return step!;
}

describe('a held dry-run request, cancelled', () => {
  it('`autopilot cancel` audits it as the worker itself does (dryRun false, no "(dry run)" in the story)', async () => {
    // The reference: a webhook cancel the worker ends (the tick sends it back, the worker ends it).
    const at = new Date('2026-11-23T20:10:00Z');
    const policy = parsePolicy(basePolicy(bench.slack.origin));
    const cancelled = await heldAccess(bench.table).cancel(
      { requestId: 'dry-1', by: 'slack:U0ADMIN', reason: 'not tonight', now: at },
      (item) => mayCancel(policy, 'slack:U0ADMIN', item.request, at),
    );
    expect(cancelled).toMatchObject({ ok: true });
    bench.clock.now = new Date('2026-11-23T20:11:00Z');
    await releaseHeld(releaseDeps(bench), bench.clock.now);
    await bench.run(bench.worker(), await bench.receive());
    expect((await readFinal(bench.table, 'dry-1'))?.result).toBe('cancelled');
    const byWorker = await cancelledStep('dry-1');

    // The same cancel from the CLI.
    const t = captureIo({
      env: {
        STATE_TABLE_NAME: bench.table.tableName,
        AWS_ENDPOINT_URL_DYNAMODB: bench.emulators.dynamodbEndpoint,
        USER: 'alice',
      },
      cwd,
      now: () => new Date('2026-11-23T20:30:00Z'),
    });
    expect(await runCli(['cancel', 'dry-2', '--reason', 'superseded'], t.io)).toBe(0);
    expect((await readFinal(bench.table, 'dry-2'))?.result).toBe('cancelled');
    const byCli = await cancelledStep('dry-2');
    expect({ cli: byCli.dryRun, line: stepLine(byCli).includes('dry run') }).toEqual({
      cli: byWorker.dryRun,
      line: false,
    });
    expect(byCli.dryRun).toBe(false);
  });

  it('the tick ending a stuck cancelled dry-run wait audits it as the worker does (dryRun false)', async () => {
    const requestId = 'dry-stuck';
    const since = '2026-11-23T10:00:00.000Z';
    const request = {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_stuck',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci', id: 'x' },
      requestedAt: since,
      requestId,
      dryRun: true,
    } as const;
    await holdRequest(
      bench.table,
      {
        requestId,
        action: 'approve_phase',
        target: 'trigger trg_stuck phase ph_1',
        requester: 'ci:x',
        why: 'window',
        rule: 'r',
        reason: 'r',
        since,
        nextLook: since,
        request,
      },
      new Date(since),
    );
    const tick = releaseDeps(bench);
    // Three sends that never came back: the wait is stuck.
    for (const hhmm of ['10:01', '10:16', '10:31'])
      await releaseHeld(tick, new Date(`2026-11-23T${hhmm}:00Z`));
    await bench.purge();
    const at = new Date('2026-11-23T11:00:00Z');
    const policy = parsePolicy(basePolicy(bench.slack.origin));
    const cancelled = await heldAccess(bench.table).cancel(
      { requestId, by: 'slack:U0ADMIN', reason: 'clean up', now: at },
      (item) => mayCancel(policy, 'slack:U0ADMIN', item.request, at),
    );
    expect(cancelled).toMatchObject({ ok: true });
    const tock = await releaseHeld(tick, new Date('2026-11-23T11:00:30Z'));
    expect(tock.ended).toContain(requestId);
    expect((await cancelledStep(requestId)).dryRun).toBe(false);
  });
});
