/**
 * Whole sweeper runs against the sandbox over HTTP, the DynamoDB emulator (dynalite) and the
 * SQS emulator (fauxqs): first and incremental runs in both event orders, a crash after every
 * step followed by a rerun (nothing lost, no effect doubled), stopping for time, the run
 * lease, pause, notifications and skipped events. Expected values are computed from the
 * sandbox's own event list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effectKey, parseActionRequest } from '../../src/actions/request.js';
import type { NewEvent as SandboxEvent } from '../../src/sandbox/index.js';
import type { EventLike, EventOrder } from '../../src/sweeper/types.js';
import {
  DAY,
  drainQueue,
  eventRequests,
  freshState,
  makeSweeper,
  NOW,
  policyWith,
  type Rig,
  startRig,
  stateOf,
} from './harness.js';

const MAX_AGE = 7 * DAY;

function oldestFirst(rig: Rig): EventLike[] {
  const all = rig.sandbox.sandbox.state.events.all() as EventLike[];
  return Number(all[0]?.timestamp) > Number(all.at(-1)?.timestamp) ? [...all].reverse() : all;
}

/** What a correct sweeper must have done after reading `events`. */
function expectations(events: EventLike[]) {
  const approvals = events
    .filter(
      (e) =>
        e.name === 'release_checks_passed' &&
        e.metadata?.phase === 'canary' &&
        Number(e.timestamp) >= NOW - MAX_AGE,
    )
    .map((e) => `approve_phase#${e.metadata?.triggerID}#${e.metadata?.phaseID}`)
    .sort();
  const notices = events.filter(
    (e) => e.name.startsWith('experiment_') && Number(e.timestamp) >= NOW - MAX_AGE,
  ).length;
  const lastSeen = new Map<string, number>();
  for (const e of events) {
    if (e.name !== 'config_exposure') continue;
    const id = String(e.metadata?.config);
    lastSeen.set(id, Math.max(lastSeen.get(id) ?? 0, Number(e.timestamp)));
  }
  return { approvals, notices, lastSeen };
}

function approvalsIn(bodies: Array<Record<string, unknown>>) {
  return bodies
    .filter((b) => b.action === 'approve_phase')
    .map((b) => {
      const parsed = parseActionRequest(JSON.stringify(b));
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.request;
    });
}

describe.each(['newest-first', 'oldest-first'] as const)('a sweeper run, events %s', (order: EventOrder) => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventOrder: order });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('reads the history on a first run, enqueues and notifies by the rules, indexes exposures and queues stale configs', async () => {
    const state = await freshState(rig);
    rig.slack.posts.length = 0;
    const policy = policyWith(rig, (p) => {
      p.sweeper!.staleConfigs!.configs = ['new_checkout_copy', 'checkout_legacy'];
    });
    const from = rig.sandbox.sandbox.requests.length;
    const summary = await makeSweeper(rig, state, { policy, ruleMaxAgeMs: MAX_AGE }).run({
      now: new Date(NOW),
    });
    const expected = expectations(oldestFirst(rig));

    expect(summary.partial).toBe(false);
    expect(summary.events.order).toBe(order);
    // + 2: one more than the pages for the end-of-run shift check (src/sweeper/shift-check.ts).
    expect(eventRequests(rig, from).length).toBeLessThanOrEqual(Math.ceil(2000 / 100) + 2);

    const bodies = await drainQueue(rig, state.queueUrl);
    const approvals = approvalsIn(bodies);
    expect(approvals.map((r) => effectKey(r)).sort()).toEqual(expected.approvals);
    expect(new Set(approvals.map((r) => r.requestId)).size).toBe(approvals.length);
    expect(
      approvals.every(
        (r) => r.requestedBy.source === 'events' && r.requestedBy.id === 'approve canary after checks',
      ),
    ).toBe(true);

    const notices = rig.slack.posts.filter((p) => p.body.text?.includes('rule "tell the channel"'));
    expect(notices).toHaveLength(expected.notices);

    const { lastSeen, watch, cursor } = await stateOf(state.table);
    expect(lastSeen).toEqual(expected.lastSeen);
    expect([...watch.keys()].sort()).toEqual(
      [...new Set([...expected.lastSeen.keys(), 'new_checkout_copy', 'checkout_legacy'])].sort(),
    );
    expect(watch.get('new_checkout_copy')?.origin).toBe('policy');
    // Observation starts at the log's oldest event: the seeded history reaches our read with no
    // silence longer than three days (src/sweeper/observation.ts).
    const stamps = oldestFirst(rig)
      .map((e) => Number(e.timestamp))
      .sort((a, b) => a - b);
    expect(stamps.every((ts, i) => i === 0 || ts - (stamps[i - 1] as number) <= 3 * DAY)).toBe(true);
    expect(cursor?.observedSince).toBe(stamps[0]);

    // new_checkout_copy has had no exposure for 60 days: queued; checkout_legacy was never exposed but is protected.
    const archives = bodies.filter((b) => b.action === 'archive_config');
    expect(archives.map((b) => b.configId)).toEqual(['new_checkout_copy']);
    expect(archives[0]).toMatchObject({
      requestedBy: { source: 'schedule', id: 'stale-config-sweep' },
      force: false,
      reason: expect.stringMatching(/^No exposures for 6\d days/),
    });
    expect(summary.stale.skipped).toContainEqual({ configId: 'checkout_legacy', reason: 'protected' });
    expect(rig.slack.posts.some((p) => p.body.text?.startsWith('*Stale config sweep*'))).toBe(true);
  });

  it('reads only the new events on the next runs, at ceil(k / limit) + 3 requests', async () => {
    const state = await freshState(rig);
    const policy = policyWith(rig);
    const sweeper = makeSweeper(rig, state, { policy, ruleMaxAgeMs: MAX_AGE });
    await sweeper.run({ now: new Date(NOW) });
    await drainQueue(rig, state.queueUrl);

    const t = NOW + 10_000;
    const fresh: EventLike[] = Array.from({ length: 150 }, (_, i) => ({
      timestamp: String(t + i),
      name: 'page_view',
      source: 'web',
      value: '/',
      userID: `u${i}`,
      metadata: { i },
    }));
    fresh[40] = {
      ...fresh[40],
      name: 'config_exposure',
      metadata: { config: 'new_checkout_copy' },
    } as EventLike;
    fresh[90] = {
      ...fresh[90],
      name: 'release_checks_passed',
      metadata: { phase: 'canary', triggerID: 'trg_new', phaseID: 'ph_9' },
    } as EventLike;
    rig.sandbox.sandbox.addEvents(fresh as SandboxEvent[]);
    const from = rig.sandbox.sandbox.requests.length;
    const summary = await sweeper.run({ now: new Date(t + 1000) });
    // + 3: the last request is the end-of-run shift check (src/sweeper/shift-check.ts).
    expect(eventRequests(rig, from).length).toBeLessThanOrEqual(Math.ceil(150 / 100) + 3);
    expect(summary.events.newEvents).toBe(150);
    const bodies = await drainQueue(rig, state.queueUrl);
    expect(approvalsIn(bodies).map((r) => effectKey(r))).toEqual(['approve_phase#trg_new#ph_9']);
    expect(bodies.filter((b) => b.action === 'archive_config')).toEqual([]);
    expect((await stateOf(state.table)).lastSeen.get('new_checkout_copy')).toBe(t + 40);

    const quiet = await sweeper.run({ now: new Date(t + 2000) });
    expect(quiet.events.newEvents).toBe(0);
    expect(quiet.events.requests).toBeLessThanOrEqual(2);
  });
  it('handles events arriving during a run: each is acted on once, in this run or the next', async () => {
    const state = await freshState(rig);
    const sweeper = makeSweeper(rig, state, { policy: policyWith(rig), ruleMaxAgeMs: MAX_AGE });
    await sweeper.run({ now: new Date(NOW) });
    await drainQueue(rig, state.queueUrl);
    let t = NOW + 100_000;
    const arrive = (n: number) =>
      rig.sandbox.sandbox.addEvents(
        Array.from({ length: n }, (_, i) => ({
          timestamp: ++t,
          name: 'release_checks_passed',
          source: 'ci',
          value: 'passed',
          userID: 'ci-bot',
          metadata: { phase: 'canary', triggerID: `trg_arrival_${t}`, phaseID: `ph_${i}` },
        })),
      );
    arrive(120);
    let pages = 0;
    const during = makeSweeper(rig, state, {
      policy: policyWith(rig),
      ruleMaxAgeMs: MAX_AGE,
      hooks: {
        onStep(step) {
          if (step === 'page' && ++pages <= 2) arrive(30);
        },
      },
    });
    const runs = [await during.run({ now: new Date(t) }), await sweeper.run({ now: new Date(t + 1) })];
    const keys = approvalsIn(await drainQueue(rig, state.queueUrl)).map((r) => effectKey(r));
    // Queued once, or counted once over the rule's cap for a run (src/sweeper/request-cap.ts).
    const queued = runs.reduce((sum, run) => sum + run.rules.enqueued, 0);
    const capped = runs.reduce((sum, run) => sum + run.rules.enqueueCapped, 0);
    expect(keys).toHaveLength(queued);
    expect(new Set(keys).size).toBe(queued);
    expect(queued + capped).toBe(180);
  });
});
