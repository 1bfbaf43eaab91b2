import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox/index.js';
import { call, NOW } from './helpers.js';

const archiveBody = { forceArchive: false, archiveReason: 'x' };
const mutate = (s: ReturnType<typeof createSandbox>, key?: string) =>
  call(s, 'PATCH', '/console/v1/roles/member', { permissions: {} }, key ? { key } : {});

describe('mutation rate limits', () => {
  it('answers 429 with Retry-After once a window is full, and again 200 when it slides', async () => {
    let clock = NOW;
    const s = createSandbox({ now: () => clock, rateLimits: { limits: [{ max: 3, perMs: 1000 }] } });
    for (let i = 0; i < 3; i++) expect((await mutate(s)).status).toBe(200);
    clock += 400;
    const limited = await mutate(s);
    expect(limited.status).toBe(429);
    expect(limited.json).toEqual({ status: 429, message: expect.stringMatching(/3 mutations per 1000 ms/) });
    expect(limited.headers.get('retry-after')).toBe('1');
    clock += 600;
    expect((await mutate(s)).status).toBe(200);
  });

  it('does not limit reads', async () => {
    const s = createSandbox({ now: () => NOW, rateLimits: { limits: [{ max: 1, perMs: 1000 }] } });
    for (let i = 0; i < 5; i++) expect((await call(s, 'GET', '/console/v1/roles/member')).status).toBe(200);
  });

  it('applies every window: the longer one can refuse after the shorter one slid', async () => {
    let clock = NOW;
    const s = createSandbox({
      now: () => clock,
      rateLimits: {
        limits: [
          { max: 2, perMs: 1000 },
          { max: 3, perMs: 10_000 },
        ],
      },
    });
    expect((await mutate(s)).status).toBe(200);
    expect((await mutate(s)).status).toBe(200);
    clock += 1000;
    expect((await mutate(s)).status).toBe(200);
    clock += 1000;
    const limited = await mutate(s);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('8');
    clock = NOW + 10_000;
    expect((await mutate(s)).status).toBe(200);
  });

  // FACTS.md: the platform limits mutations per project. The sandbox is one project, whatever key
  // a request carries: during a key rotation (two valid keys) there is still one budget.
  it('counts per project, every key of it sharing one budget, and does not count refused requests', async () => {
    let clock = NOW;
    const s = createSandbox({
      apiKeys: ['old', 'new'],
      readOnlyApiKeys: ['viewer'],
      now: () => clock,
      rateLimits: { limits: [{ max: 2, perMs: 1000 }] },
    });
    expect((await mutate(s, 'viewer')).status).toBe(403);
    expect((await mutate(s, 'old')).status).toBe(200);
    expect((await mutate(s, 'new')).status).toBe(200);
    expect((await mutate(s, 'new')).status).toBe(429);
    expect((await mutate(s, 'old')).status).toBe(429);
    clock += 1000;
    expect((await mutate(s, 'new')).status).toBe(200);
  });

  it('keeps Retry-After’s 1-s resolution in scaled time: retry-after-ms in steps of 1000 / timeScale', async () => {
    let clock = NOW;
    // The platform's 100 per 10 s, divided by 4.
    const s = createSandbox({
      now: () => clock,
      rateLimits: { limits: [{ max: 2, perMs: 2_500 }], timeScale: 4 },
    });
    await mutate(s);
    clock += 1_000;
    await mutate(s);
    clock += 100;
    const limited = await mutate(s);
    // The first mutation leaves the window 1,400 ms from now: 1,500 in steps of 250 ms.
    expect([limited.headers.get('retry-after'), limited.headers.get('retry-after-ms')]).toEqual([
      '2',
      '1500',
    ]);
    const unscaled = createSandbox({ now: () => NOW, rateLimits: { limits: [{ max: 1, perMs: 1000 }] } });
    await mutate(unscaled);
    expect((await mutate(unscaled)).headers.has('retry-after-ms')).toBe(false);
  });

  it('omits Retry-After when configured to', async () => {
    const s = createSandbox({
      now: () => NOW,
      rateLimits: { limits: [{ max: 1, perMs: 1000 }], retryAfter: false },
    });
    await mutate(s);
    const limited = await mutate(s);
    expect(limited.status).toBe(429);
    expect(limited.headers.has('retry-after')).toBe(false);
  });

  it("applies the platform's 100 per 10 s by default and changes nothing when refusing", async () => {
    const s = createSandbox({ now: () => NOW });
    for (let i = 0; i < 100; i++) expect((await mutate(s)).status).toBe(200);
    const limited = await call(
      s,
      'PUT',
      '/console/v1/dynamic_configs/new_checkout_copy/archive',
      archiveBody,
    );
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBe(10);
    expect(s.state.configs.get('new_checkout_copy')?.archived).toBe(false);
  });

  it("applies the platform's 900 per 15 minutes by default", async () => {
    let clock = NOW;
    const s = createSandbox({ now: () => clock });
    for (let i = 0; i < 900; i++) {
      if (i % 100 === 0) clock += 10_000;
      expect((await mutate(s)).status).toBe(200);
    }
    clock += 10_000;
    const limited = await mutate(s);
    expect(limited.status).toBe(429);
    expect(limited.json.message).toMatch(/900 mutations/);
  });

  it('can be disabled', async () => {
    const s = createSandbox({ now: () => NOW, rateLimits: false });
    for (let i = 0; i < 150; i++) expect((await mutate(s)).status).toBe(200);
  });
});
