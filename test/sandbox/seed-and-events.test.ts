import { describe, expect, it } from 'vitest';
import { createSandbox, type EventRecord } from '../../src/sandbox/index.js';
import { call, DAY, NOW } from './helpers.js';

const exposuresOf = (events: EventRecord[], config: string) =>
  events.filter((e) => e.name === 'config_exposure' && e.metadata.config === config);

describe('seeded state', () => {
  const sandbox = createSandbox({ now: () => NOW });
  const { state } = sandbox;

  it('holds the resources the issue asks for', () => {
    const segments = [...state.segments.values()];
    expect(segments.length).toBeGreaterThanOrEqual(30);
    expect(segments.filter((s) => s.type === 'id_list').length).toBeGreaterThan(0);
    expect(
      segments.filter((s) => s.type === 'rule_based').every((s) => (s.rules?.conditions.length ?? 0) > 0),
    ).toBe(true);
    expect(state.metricSources.size).toBe(25);
    expect(state.roles.size).toBeGreaterThan(3);
    expect([...state.metrics.keys()].every((id) => /^[a-z0-9_]+::[a-z_]+$/.test(id))).toBe(true);
    expect([...state.experiments.values()].every((e) => e.groups.some((g) => g.name === 'control'))).toBe(
      true,
    );
    expect(state.configs.has('new_checkout_copy')).toBe(true);
    expect(state.configs.has('checkout_banner')).toBe(true);
    expect(state.configs.size).toBeGreaterThanOrEqual(22);
    expect(state.teams.size).toBeGreaterThan(0);
    expect(state.events.total).toBe(2000);
  });

  it('spreads 2,000 events over the last 90 days, newest first, with the platform events', () => {
    const events = state.events.all();
    const times = events.map((e) => Number(e.timestamp));
    expect(times.every((t, i) => i === 0 || t <= (times[i - 1] as number))).toBe(true);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(NOW - 90 * DAY);
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW);
    const names = new Set(events.map((e) => e.name));
    for (const name of [
      'config_exposure',
      'release_checks_passed',
      'experiment_started',
      'experiment_stopped',
    ]) {
      expect(names).toContain(name);
    }
    expect(names).toContain('purchase');
  });

  it('leaves new_checkout_copy unexposed for 60 days while the other configs are exposed often', () => {
    const events = state.events.all();
    const recent = events.filter((e) => Number(e.timestamp) >= NOW - 60 * DAY);
    expect(exposuresOf(recent, 'new_checkout_copy')).toHaveLength(0);
    expect(exposuresOf(events, 'new_checkout_copy').length).toBeGreaterThan(0);
    const lastMonth = events.filter((e) => Number(e.timestamp) >= NOW - 30 * DAY);
    for (const id of state.configs.keys()) {
      if (id !== 'new_checkout_copy') expect(exposuresOf(lastMonth, id).length, id).toBeGreaterThanOrEqual(3);
    }
  });

  it('emits recent release_checks_passed events that match current canary phases', async () => {
    const checks = state.events.all().filter((e) => e.name === 'release_checks_passed');
    const recent = checks.filter((e) => Number(e.timestamp) >= NOW - DAY);
    expect(recent.length).toBeGreaterThanOrEqual(3);
    for (const e of recent) {
      expect(e.metadata).toMatchObject({ phase: 'canary', phaseID: 'ph_1' });
      expect(state.triggers.get(String(e.metadata.triggerID))?.currentPhaseID).toBe('ph_1');
    }
    // ...and a checks event for a trigger past its canary is stale: the approval is refused.
    const stale = checks.find(
      (e) => state.triggers.get(String(e.metadata.triggerID))?.currentPhaseID !== 'ph_1',
    );
    expect(stale).toBeDefined();
    const r = await call(
      createSandbox({ now: () => NOW }),
      'PUT',
      `/console/v1/release_pipeline_triggers/${stale?.metadata.triggerID}/approve`,
      { phaseID: stale?.metadata.phaseID },
    );
    expect(r.status).toBe(400);
  });

  it('links metrics to common events', () => {
    for (const name of ['page_view', 'purchase', 'add_to_cart', 'config_exposure']) {
      expect(
        [...state.metrics.values()].some((m) => m.lineage.events.includes(name)),
        name,
      ).toBe(true);
    }
  });
});

describe('determinism', () => {
  it('builds the same state and events from the same seed and clock', async () => {
    const a = createSandbox({ seed: 7, now: () => NOW });
    const b = createSandbox({ seed: 7, now: () => NOW });
    expect([...b.state.segments.values()]).toEqual([...a.state.segments.values()]);
    expect([...b.state.experiments.values()]).toEqual([...a.state.experiments.values()]);
    expect([...b.state.triggers.values()]).toEqual([...a.state.triggers.values()]);
    expect(b.state.events.all()).toEqual(a.state.events.all());
    expect((await call(b, 'GET', '/console/v1/events?page=7')).json).toEqual(
      (await call(a, 'GET', '/console/v1/events?page=7')).json,
    );
  });

  it('builds a different world from another seed', () => {
    const a = createSandbox({ seed: 7, now: () => NOW });
    const c = createSandbox({ seed: 8, now: () => NOW });
    expect(c.state.events.slice(0, 20)).not.toEqual(a.state.events.slice(0, 20));
  });

  it('reset rebuilds exactly the seeded events', () => {
    const a = createSandbox({ seed: 7, now: () => NOW });
    const before = a.state.events.slice(0, 50);
    a.addEvents([{ timestamp: NOW + 1, name: 'purchase' }]);
    a.setEventOrder('oldest-first');
    a.reset();
    expect(a.state.events.total).toBe(2000);
    expect(a.state.events.slice(0, 50)).toEqual(before);
  });
});

describe('event order and appended events', () => {
  it('serves oldest-first when asked, and switches at runtime', async () => {
    const sandbox = createSandbox({ now: () => NOW, eventOrder: 'oldest-first', eventCount: 50 });
    const first = (await call(sandbox, 'GET', '/console/v1/events?limit=50')).json.data as EventRecord[];
    const times = first.map((e) => Number(e.timestamp));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    sandbox.setEventOrder('newest-first');
    const second = (await call(sandbox, 'GET', '/console/v1/events?limit=50')).json.data as EventRecord[];
    expect(second).toEqual([...first].reverse());
  });

  it('puts appended events at the newest end and counts them', async () => {
    const sandbox = createSandbox({ now: () => NOW, eventCount: 30 });
    sandbox.addEvents([
      { timestamp: String(NOW + 1000), name: 'config_exposure', metadata: { config: 'checkout_banner' } },
      {
        timestamp: NOW + 2000,
        name: 'release_checks_passed',
        metadata: { phase: 'canary', triggerID: 'trg_2', phaseID: 'ph_1' },
      },
    ]);
    const page = (await call(sandbox, 'GET', '/console/v1/events?limit=2')).json;
    expect(page.pagination.totalItems).toBe(32);
    expect(page.data.map((e: EventRecord) => e.name)).toEqual(['release_checks_passed', 'config_exposure']);
    expect(page.data[0]).toMatchObject({ timestamp: String(NOW + 2000), source: 'sandbox', userID: '' });
  });

  it('keeps timestamp order when an appended event is older than the seeded ones', () => {
    const sandbox = createSandbox({ now: () => NOW, eventCount: 40, eventOrder: 'oldest-first' });
    sandbox.addEvents([
      { timestamp: NOW - 45 * DAY, name: 'late_arrival' },
      { timestamp: NOW + 5, name: 'newest' },
    ]);
    const all = sandbox.state.events.all();
    expect(all).toHaveLength(42);
    const times = all.map((e) => Number(e.timestamp));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(all.at(-1)?.name).toBe('newest');
    expect(all.some((e) => e.name === 'late_arrival')).toBe(true);
  });

  it('seeds 100,000 events and serves their last page', async () => {
    const sandbox = createSandbox({ now: () => NOW, eventCount: 100_000 });
    expect(sandbox.state.events.total).toBe(100_000);
    const last = await call(sandbox, 'GET', '/console/v1/events?page=100&limit=1000');
    expect(last.json.data).toHaveLength(1000);
    expect(last.json.pagination.nextPage).toBeNull();
    expect(Number(last.json.data.at(-1).timestamp)).toBeGreaterThanOrEqual(NOW - 90 * DAY);
  });
});
