/**
 * A deferral is promised only for a wait that ends at least RELEASE_MARGIN_MS before the
 * request's expiry (`requestedAt` + `maxDeferHours`). The worker does not look again at the wait's
 * end but when the release tick (every minute) has sent the held copy back through the queue; a
 * wait ending at the expiry itself was told "deferred until Mon 09:00" and then denied as expired
 * at Mon 09:00. Such a request is now denied at once, and `policy test` predicts the same; a wait
 * ending just the margin before its expiry is still deferred, and approved when the window opens.
 */
import { describe, expect, it } from 'vitest';
import { RELEASE_MARGIN_MS } from '../../src/policy/action-rules.js';
import { runCases } from '../../src/policy/cases.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { outcomeOfResult } from '../../src/policy/replay.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { readAudit } from '../../src/state/audit.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchForFile, copyTrigger } from './fixture.js';
import { releaseTick } from './stale-archive.js';

const bench = benchForFile({ sandbox: { eventCount: 0 } });

const policyInput = (slackOrigin: string): PolicyInput => ({
  version: 1,
  timezone: 'UTC',
  approvals: {
    rules: [
      {
        name: 'CI in office hours',
        when: { requesters: ['ci:*'] },
        decision: 'approve',
        windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
        outsideWindows: 'defer',
      },
    ],
    maxDeferHours: 48,
  },
  notifications: { slackWebhookUrl: `${slackOrigin}/services/channel` },
});

// The window opens Monday 09:00. A scheduled CI job asking Saturday 09:00 expires then, 48 hours
// later; one asking five minutes later (the margin) expires at Monday 09:05.
const MONDAY_OPENING = '2026-11-23T09:00:00Z';
const at = (ms: number) => new Date(ms).toISOString();
const SATURDAY = '2026-11-21T09:00:00Z';
const SATURDAY_PLUS_MARGIN = at(Date.parse(SATURDAY) + RELEASE_MARGIN_MS);

/** Sends `requestId` for `triggerId` at `requestedAt`, runs the worker on it; `policy test`'s prediction and the first record. */
async function askAt(requestId: string, triggerId: string, requestedAt: string, outcome: 'defer' | 'deny') {
  const input = policyInput(bench.slack.origin);
  const [predicted] = runCases(parsePolicy(input), {
    cases: [
      {
        name: 'Saturday CI',
        at: requestedAt,
        request: { action: 'approve_phase', target: `${triggerId}/ph_1`, requester: 'ci:nightly' },
        expect: { outcome },
      },
    ],
  });
  copyTrigger(bench, triggerId);
  const worker = bench.worker({ policy: input });
  bench.clock.now = new Date(requestedAt);
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestId,
    requestedBy: { source: 'ci', id: 'nightly' },
    requestedAt,
  });
  await bench.run(worker, await bench.receive());
  const [first] = await readAudit(bench.table, requestId);
  return { worker, predicted, first };
}

describe('a deferral that ends close to the request expiry', () => {
  it('is denied at once when the wait ends at the expiry, as policy test predicts', async () => {
    const { predicted, first } = await askAt('saturday-ci', 'trg_expiry', SATURDAY, 'deny');
    expect(predicted).toMatchObject({ got: 'deny', pass: true });
    expect(first).toMatchObject({ result: 'denied', rule: 'maxDeferHours' });
    expect(outcomeOfResult(first?.result ?? '')).toBe(predicted?.got);
    // The reason names the opening it would have waited for, past what maxDeferHours allows.
    expect(first?.reason).toContain('would wait until');
    expect(first?.reason).toContain('approvals.maxDeferHours = 48');
    expect(first?.reason).toContain(`${RELEASE_MARGIN_MS / 60_000} minutes`);
    const tickAt = new Date(Date.parse(MONDAY_OPENING) + 30_000);
    bench.clock.now = tickAt;
    expect((await releaseHeld(releaseTick(bench), tickAt)).released).toEqual([]);
  });

  it('is deferred and then approved at the opening when the wait ends the margin before the expiry', async () => {
    const { worker, predicted, first } = await askAt(
      'saturday-ci-later',
      'trg_margin',
      SATURDAY_PLUS_MARGIN,
      'defer',
    );
    expect(predicted?.got).toBe('defer');
    expect(first?.result).toBe('deferred');

    // The release tick sends the held copy back at its first run after the wait; the worker
    // decides it when SQS delivers it, before the request expires at 09:05.
    const tickAt = new Date(Date.parse(MONDAY_OPENING) + 30_000);
    bench.clock.now = tickAt;
    expect((await releaseHeld(releaseTick(bench), tickAt)).released).toEqual(['saturday-ci-later']);
    bench.clock.now = new Date(tickAt.getTime() + 1_000);
    await bench.run(worker, await bench.receive());

    const trail = await readAudit(bench.table, 'saturday-ci-later');
    const end = trail[trail.length - 1];
    expect(`${first?.result} → ${end?.result} (${end?.rule})`).toBe(
      'deferred → approved (CI in office hours)',
    );
  });
});
