import { describe, expect, it } from 'vitest';
import { parseActionRequest } from '../../src/actions/request.js';
import { chaosMix } from '../../src/local/chaos-mix.js';
import { createSandbox } from '../../src/sandbox/index.js';

describe("the chaos run's workload", () => {
  const sandbox = createSandbox({ seed: 1, eventCount: 10 });
  const mix = chaosMix(sandbox, 1_000, 7, new Date('2026-11-23T10:00:00Z'));

  it('is 1,000 messages of every kind, the same every time', () => {
    expect(mix).toHaveLength(1_000);
    const kinds = new Map<string, number>();
    for (const m of mix) kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
    expect([...kinds.keys()].sort()).toEqual(['approve', 'archive', 'disable', 'dry-run', 'poison']);
    expect(kinds.get('poison')).toBe(20);
    expect(chaosMix(sandbox, 1_000, 7, new Date('2026-11-23T10:00:00Z'))).toEqual(mix);
  });

  it('holds valid requests (poison aside), retries of one effect, and redeliveries of one request', () => {
    const valid = mix.filter((m) => m.kind !== 'poison').map((m) => parseActionRequest(m.body));
    expect(valid.every((p) => p.ok)).toBe(true);
    expect(mix.filter((m) => m.kind === 'poison').every((m) => !parseActionRequest(m.body).ok)).toBe(true);
    const ids = mix.flatMap((m) => (m.requestId ? [m.requestId] : []));
    expect(new Set(ids).size).toBeLessThan(ids.length);
    expect(new Set(ids).size).toBeGreaterThan(ids.length * 0.8);
  });
});
