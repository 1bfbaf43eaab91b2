/**
 * The sweeper when things go wrong, against the sandbox over HTTP, dynalite and fauxqs: a
 * crash right after every step followed by a rerun (nothing lost, no effect doubled; compared
 * with a clean run), stopping for time with a margin, the run lease, pause, skipped events and
 * notifications without a webhook, dry run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectKey, parseActionRequest } from '../../src/actions/request.js';
import { writePause } from '../../src/state/pause.js';
import { acquireLease } from '../../src/state/sweep-lease.js';
import { SWEEPER_STEPS, type SweeperStep } from '../../src/sweeper/types.js';
import {
  DAY,
  drainQueue,
  eventRequests,
  freshState,
  makeSweeper,
  memoryLogger,
  NOW,
  policyWith,
  type Rig,
  startRig,
  stateOf,
} from './harness.js';

describe('crashes and limits', () => {
  let rig: Rig;
  let reference: Awaited<ReturnType<typeof outcome>>;
  beforeAll(async () => {
    rig = await startRig({ eventOrder: 'newest-first', eventCount: 500 });
    reference = await outcome();
  });
  afterAll(async () => {
    await rig.close();
  });

  const policy = () =>
    policyWith(rig, (p) => {
      p.sweeper!.staleConfigs!.configs = ['new_checkout_copy', 'gone_a', 'gone_b'];
    });

  /** A clean run's outcome, to compare crashed-and-rerun runs with. */
  async function outcome(crashAt?: { step: SweeperStep; nth: number }) {
    const state = await freshState(rig);
    rig.slack.posts.length = 0;
    let seen = 0;
    const hooks = {
      onStep(step: SweeperStep) {
        if (crashAt && step === crashAt.step && ++seen === crashAt.nth)
          throw new Error(`crash after ${step}`);
      },
    };
    const options = { policy: policy(), ruleMaxAgeMs: 100 * DAY, flushEvery: 150 };
    if (crashAt) {
      await expect(
        makeSweeper(rig, state, { ...options, hooks }).run({ now: new Date(NOW) }),
      ).rejects.toThrow(`crash after ${crashAt.step}`);
      expect(seen).toBe(crashAt.nth);
    }
    const summary = await makeSweeper(rig, state, options).run({ now: new Date(NOW) });
    expect(summary.partial).toBe(false);
    const bodies = await drainQueue(rig, state.queueUrl);
    const { lastSeen, watch } = await stateOf(state.table);
    return {
      requestIds: bodies.map((b) => String(b.requestId)),
      effects: [...new Set(bodies.map((b) => effectKey(parseActionRequest(JSON.stringify(b)) as never)))],
      bodies,
      lastSeen,
      watch: [...watch.keys()].sort(),
      posts: rig.slack.posts.map((p) => p.body.text ?? ''),
    };
  }

  it('the reference run has work of every kind', () => {
    expect(reference.requestIds.length).toBeGreaterThan(3);
    expect(reference.bodies.some((b) => b.action === 'archive_config')).toBe(true);
    expect(reference.posts.length).toBeGreaterThan(3);
    expect(reference.lastSeen.size).toBeGreaterThan(5);
  });

  // The second flush (or the only occurrence for the once-per-run steps).
  const crashes = SWEEPER_STEPS.map(
    (step) =>
      [
        step,
        ['stale-enqueue', 'stale-marks', 'summary'].includes(step) ? 1 : step === 'page' ? 3 : 2,
      ] as const,
  );
  it.each(crashes)(
    'loses nothing and doubles no effect after a crash right after "%s" (occurrence %d)',
    async (step, nth) => {
      const crash = { step, nth };
      const after = await outcome(crash);
      // Every request of the clean run arrives; a re-sent one carries the same request id.
      expect([...new Set(after.requestIds)].sort()).toEqual([...new Set(reference.requestIds)].sort());
      const ids = new Map<string, string>();
      for (const body of after.bodies) {
        const id = String(body.requestId);
        const { requestedAt: _a, ...rest } = body;
        const text = JSON.stringify(rest);
        expect(ids.get(id) ?? text).toBe(text);
        ids.set(id, text);
      }
      expect(after.lastSeen).toEqual(reference.lastSeen);
      expect(after.watch).toEqual(reference.watch);
      // Notifications: all of them; repeated only when the crash fell between a post and its mark.
      expect([...new Set(after.posts)].sort()).toEqual([...new Set(reference.posts)].sort());
      if (crash.step !== 'notify') expect(after.posts.length).toBe(reference.posts.length);
    },
  );

  it('stops for time with its margin, saves progress, reports partial, and the next run completes', async () => {
    const state = await freshState(rig);
    // The rig's clock, which the hooks advance: the sweeper's deadline and the Console client's
    // checks of it read the same time.
    rig.clock.now = NOW;
    const sweeper = makeSweeper(rig, state, {
      policy: policy(),
      clock: () => rig.clock.now,
      safetyMarginMs: 10_000,
      flushEvery: 300,
      hooks: {
        onStep(step) {
          if (step === 'page') rig.clock.now += 40_000; // every page "takes" 40 s
        },
      },
    });
    const first = await sweeper.run({ now: new Date(NOW), remainingMs: () => NOW + 100_000 - rig.clock.now });
    expect(first.partial).toBe(true);
    expect(first.stop).toBe('time');
    expect(first.events.newEvents).toBeGreaterThan(0);
    expect(first.events.newEvents).toBeLessThan(500);
    expect(first.stale.judged).toBe(false);
    const saved = (await stateOf(state.table)).cursor;
    expect(saved?.position).toBeGreaterThan(0);

    const done = makeSweeper(rig, state, { policy: policy(), flushEvery: 300 });
    const second = await done.run({ now: new Date(NOW) });
    expect(second.partial).toBe(false);
    expect(first.events.newEvents + second.events.newEvents).toBe(rig.sandbox.sandbox.state.events.total);
    expect((await stateOf(state.table)).lastSeen).toEqual(reference.lastSeen);
  });

  it('skips the run while another run holds the lease, without reading', async () => {
    const state = await freshState(rig);
    expect(await acquireLease(state.table, 'someone-else', NOW, NOW + 60_000)).toBe(true);
    const from = rig.sandbox.sandbox.requests.length;
    const summary = await makeSweeper(rig, state, { policy: policy() }).run({ now: new Date(NOW) });
    expect(summary.stop).toBe('leased');
    expect(eventRequests(rig, from)).toHaveLength(0);
  });

  it('keeps observing while paused: rule requests are still queued (the worker defers them), archives are held', async () => {
    const state = await freshState(rig);
    await writePause(state.table, { paused: true, by: 'slack:U0ADMIN', at: new Date(NOW) });
    const summary = await makeSweeper(rig, state, { policy: policy(), ruleMaxAgeMs: 30 * DAY }).run({
      now: new Date(NOW),
    });
    const bodies = await drainQueue(rig, state.queueUrl);
    expect(summary.paused).toBe(true);
    expect(bodies.some((b) => b.action === 'approve_phase')).toBe(true);
    expect(bodies.some((b) => b.action === 'archive_config')).toBe(false);
    expect(summary.stale.skipped).toContainEqual({ configId: 'new_checkout_copy', reason: 'paused' });
    expect((await stateOf(state.table)).lastSeen).toEqual(reference.lastSeen);
  });

  it('skips an event whose template field is missing, with the reason logged, and counts notifications it cannot post', async () => {
    const state = await freshState(rig);
    await makeSweeper(rig, state, { policy: policy() }).run({ now: new Date(NOW) });
    await drainQueue(rig, state.queueUrl);
    rig.sandbox.sandbox.addEvents([
      {
        timestamp: NOW + 50_000,
        name: 'release_checks_passed',
        source: 'ci',
        metadata: { phase: 'canary', triggerID: 'trg_3' },
      },
      { timestamp: NOW + 50_001, name: 'experiment_started', source: 'console', value: 'exp_1' },
    ]);
    const { logger, lines } = memoryLogger();
    const noWebhook = policyWith(rig, (p) => {
      p.notifications = {};
    });
    const summary = await makeSweeper(rig, state, { policy: noWebhook, logger }).run({
      now: new Date(NOW + 60_000),
    });
    expect(summary.rules.skipped).toBe(1);
    expect(summary.rules.notifySkipped).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        message: 'event rule skipped an event',
        reason: 'missing field metadata.phaseID',
      }),
    );
    expect(await drainQueue(rig, state.queueUrl)).toEqual([]);
  });

  it('counts a notification Slack refuses and moves on; posts the stale summary only when it changed', async () => {
    const state = await freshState(rig);
    rig.slack.posts.length = 0;
    rig.slack.setStatus(500);
    const failing = await makeSweeper(rig, state, { policy: policy(), ruleMaxAgeMs: 100 * DAY }).run({
      now: new Date(NOW),
    });
    rig.slack.setStatus(200);
    expect(failing.rules.notifyFailed).toBeGreaterThan(0);
    expect(failing.partial).toBe(false);
    expect((await stateOf(state.table)).cursor?.position).toBe(rig.sandbox.sandbox.state.events.total);

    rig.slack.posts.length = 0;
    const again = makeSweeper(rig, state, { policy: policy() });
    await again.run({ now: new Date(NOW) }); // the summary text is new: posted
    await again.run({ now: new Date(NOW) }); // same text: not posted again
    const summaries = rig.slack.posts.filter((p) => p.body.text?.startsWith('*Stale config sweep*'));
    expect(summaries).toHaveLength(1);
  });

  it('only reports in dry run', async () => {
    const state = await freshState(rig);
    const dry = policyWith(rig, (p) => {
      p.sweeper!.staleConfigs!.dryRun = true;
    });
    const summary = await makeSweeper(rig, state, { policy: dry }).run({ now: new Date(NOW) });
    const bodies = await drainQueue(rig, state.queueUrl);
    expect(bodies.filter((b) => b.action === 'archive_config')).toEqual([]);
    expect(summary.stale.wouldQueue).toContain('new_checkout_copy');
    const unprotected = summary.stale.stale.filter((id) => !id.startsWith('checkout_'));
    expect(summary.stale.wouldQueue).toEqual(unprotected.slice(0, 5));
    expect(summary.stale.dryRun).toBe(true);
  });
});
