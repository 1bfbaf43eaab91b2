import { describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { call, NOW } from './helpers.js';

const approve = (s: Sandbox) =>
  call(s, 'PUT', '/console/v1/release_pipeline_triggers/trg_1/approve', { phaseID: 'ph_1' });

/**
 * Whether `p` has settled once the sandbox holds `count` requests unanswered: the sandbox's own
 * word that a request hangs, not a guess from a short sleep.
 */
async function settledOnceHanging(s: Sandbox, p: Promise<unknown>, count = 1): Promise<boolean> {
  let settled = false;
  p.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await s.whenHanging(count);
  return settled;
}

describe('injected faults', () => {
  it('answers 5xx before the effect: state is unchanged', async () => {
    const s = createSandbox({ now: () => NOW, faults: { errorRate: 1 } });
    const r = await approve(s);
    expect([500, 502, 503]).toContain(r.status);
    expect(r.json).toMatchObject({ status: r.status, message: expect.any(String) });
    expect(s.state.triggers.get('trg_1')?.currentPhaseID).toBe('ph_1');
    expect(s.requests[0]?.fault).toBe('error');
  });

  it('answers injected 429s with or without Retry-After', async () => {
    const s = createSandbox({ now: () => NOW, faults: { rateLimitRate: 1, retryAfterSeconds: 3 } });
    const withHeader = await approve(s);
    expect(withHeader.status).toBe(429);
    expect(withHeader.headers.get('retry-after')).toBe('3');
    s.setFaults({ retryAfterSeconds: null });
    const without = await approve(s);
    expect(without.status).toBe(429);
    expect(without.headers.has('retry-after')).toBe(false);
    expect(s.state.triggers.get('trg_1')?.actions).toHaveLength(0);
  });

  it('serves malformed bodies: invalid JSON, HTML and empty, with 200 or 500', async () => {
    const s = createSandbox({ now: () => NOW });
    s.setFaults({ malformedRate: 1, malformedKind: 'invalid-json', malformedStatus: 200 });
    const bad = await call(s, 'GET', '/console/v1/segments/employees');
    expect(bad.status).toBe(200);
    expect(bad.headers.get('content-type')).toContain('application/json');
    expect(() => JSON.parse(bad.text)).toThrow();
    s.setFaults({ malformedKind: 'html', malformedStatus: 500 });
    const html = await call(s, 'GET', '/console/v1/segments/employees');
    expect(html.status).toBe(500);
    expect(html.text).toMatch(/^<html>/);
    s.setFaults({ malformedKind: 'empty', malformedStatus: 200 });
    const empty = await approve(s);
    expect(empty.status).toBe(200);
    expect(empty.text).toBe('');
    expect(s.state.triggers.get('trg_1')?.currentPhaseID).toBe('ph_1');
  });

  it('draws malformed kinds and statuses when they are not pinned', async () => {
    const s = createSandbox({ now: () => NOW, faults: { malformedRate: 1 } });
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const r = await call(s, 'GET', '/console/v1/roles/admin');
      seen.add(`${r.status}:${r.text === '' ? 'empty' : r.text.startsWith('<') ? 'html' : 'json'}`);
    }
    expect(seen.size).toBe(6);
  });

  it('hangs a request until the client gives up, without applying it', async () => {
    const s = createSandbox({ now: () => NOW, faults: { hangRate: 1 } });
    const controller = new AbortController();
    const pending = approve(s);
    const aborted = call(s, 'GET', '/console/v1/roles/admin', undefined, { signal: controller.signal });
    expect(await settledOnceHanging(s, pending, 2)).toBe(false);
    expect(s.hanging).toBe(2);
    controller.abort();
    expect((await aborted).status).toBe(503);
    expect(s.hanging).toBe(1);
    s.releaseHangs();
    expect((await pending).status).toBe(503);
    expect(s.state.triggers.get('trg_1')?.currentPhaseID).toBe('ph_1');
    expect(s.requests.map((r) => r.status)).toEqual([0, 0]);
  });

  it('can apply the effect and then hang (the at-most-once worst case)', async () => {
    const s = createSandbox({ now: () => NOW, faults: { hangAfterEffectRate: 1 } });
    const pending = approve(s);
    expect(await settledOnceHanging(s, pending)).toBe(false);
    expect(s.state.triggers.get('trg_1')?.currentPhaseID).toBe('ph_2');
    s.releaseHangs();
    await pending;
    expect(s.requests[0]).toMatchObject({ status: 0, fault: 'hang-after-effect' });
  });

  it('targets only mutations or only reads', async () => {
    const s = createSandbox({ now: () => NOW, faults: { errorRate: 1, only: 'mutations' } });
    expect((await call(s, 'GET', '/console/v1/roles/admin')).status).toBe(200);
    expect((await approve(s)).status).toBeGreaterThanOrEqual(500);
    s.setFaults({ only: 'reads' });
    expect((await call(s, 'GET', '/console/v1/roles/admin')).status).toBeGreaterThanOrEqual(500);
    expect((await approve(s)).status).toBe(200);
  });

  it('adds latency before answering', async () => {
    const s = createSandbox({ now: () => NOW, faults: { latencyMs: { min: 30, max: 40 } } });
    const started = performance.now();
    expect((await call(s, 'GET', '/console/v1/roles/admin')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(29);
  });

  it('draws the same fault sequence from the same seed, a different one from another', async () => {
    const statuses = async (seed: number) => {
      const s = createSandbox({ seed, now: () => NOW, faults: { errorRate: 0.3, rateLimitRate: 0.2 } });
      const out: number[] = [];
      for (let i = 0; i < 40; i++) out.push((await call(s, 'GET', '/console/v1/roles/admin')).status);
      return out;
    };
    const a = await statuses(1);
    expect(await statuses(1)).toEqual(a);
    expect(await statuses(2)).not.toEqual(a);
    expect(a.filter((x) => x === 200).length).toBeGreaterThan(5);
    expect(a.filter((x) => x !== 200).length).toBeGreaterThan(5);
  });

  it('reset restores the configured faults and restarts their sequence', async () => {
    const s = createSandbox({ now: () => NOW, faults: { errorRate: 0.5 } });
    const run = async () => {
      const out: number[] = [];
      for (let i = 0; i < 20; i++) out.push((await call(s, 'GET', '/console/v1/roles/admin')).status);
      return out;
    };
    const first = await run();
    s.setFaults({ errorRate: 0 });
    s.reset();
    expect(await run()).toEqual(first);
  });
});
