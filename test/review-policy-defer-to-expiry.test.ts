/**
 * A deferral whose wait ends exactly at the request's expiry (`requestedAt` + `maxDeferHours`).
 * `policy test` (and `explain`) predict "deferred until Mon 09:00", and `policy replay` follows
 * that wait to an approval at Mon 09:00; but the worker only looks again when the release tick
 * (every minute) has sent the held copy back through the queue, always after that instant, when
 * the request has expired: it is denied (maxDeferHours) instead. The prediction and the worker
 * disagree, and the requester was told "deferred" for a wait that could never end in approval.
 */
import { describe, expect, it } from 'vitest';
import { runCases } from '../src/policy/cases.js';
import { parsePolicy } from '../src/policy/parse.js';
import { outcomeOfResult } from '../src/policy/replay.js';
import type { PolicyInput } from '../src/policy/schema.js';
import { readAudit } from '../src/state/audit.js';
import { releaseHeld } from '../src/worker/release.js';
import { benchForFile } from './worker/fixture.js';
import { releaseTick } from './worker/stale-archive.js';

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

// A scheduled CI job asks on Saturday 09:00:00: the window opens Monday 09:00, 48 hours later,
// which is exactly when the request expires.
const SATURDAY = '2026-11-21T09:00:00Z';
const MONDAY_OPENING = '2026-11-23T09:00:00Z';

describe('a deferral to the instant the request expires', () => {
  it('is predicted as a wait for the window, and the worker carries out the same', async () => {
    const input = policyInput(bench.slack.origin);
    const [predicted] = runCases(parsePolicy(input), {
      cases: [
        {
          name: 'Saturday CI waits for Monday',
          at: SATURDAY,
          request: { action: 'approve_phase', target: 'trg_1/ph_1', requester: 'ci:nightly' },
          expect: { outcome: 'defer' },
        },
      ],
    });

    const worker = bench.worker({ policy: input });
    bench.clock.now = new Date(SATURDAY);
    await bench.send({
      triggerId: 'trg_1',
      phaseId: 'ph_1',
      requestId: 'saturday-ci',
      requestedBy: { source: 'ci', id: 'nightly' },
      requestedAt: SATURDAY,
    });
    await bench.run(worker, await bench.receive());
    const [first] = await readAudit(bench.table, 'saturday-ci');
    // The case predicts the worker's first decision (both defer today).
    expect(outcomeOfResult(first?.result ?? '')).toBe(predicted?.got);
    if (first?.result === 'denied') return; // denied at once: no wait was promised

    // The release tick (every minute) sends the held copy back at its first run after the wait;
    // the worker decides it when SQS delivers it.
    const tickAt = new Date(Date.parse(MONDAY_OPENING) + 30_000);
    bench.clock.now = tickAt;
    expect((await releaseHeld(releaseTick(bench), tickAt)).released).toEqual(['saturday-ci']);
    bench.clock.now = new Date(tickAt.getTime() + 1_000);
    await bench.run(worker, await bench.receive());

    const trail = await readAudit(bench.table, 'saturday-ci');
    const end = trail[trail.length - 1];
    // Told "deferred until Mon 09:00", then denied as expired when that time came: the wait it
    // was promised could never end in an approval. Either it is approved at the opening, or it is
    // denied at once, as deferOrExpire denies a wait that ends past the expiry.
    expect(`${first?.result} → ${end?.result} (${end?.rule})`).toBe(
      'deferred → approved (CI in office hours)',
    );
  });
});
