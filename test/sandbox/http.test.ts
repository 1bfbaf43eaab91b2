import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { KEY } from './helpers.js';

describe('the sandbox over real HTTP on loopback', () => {
  let running: RunningSandbox;
  beforeAll(async () => {
    running = await startSandbox({ port: 0 });
  });
  afterAll(async () => {
    await running.close();
  });

  const get = (path: string, key: string | null = KEY) =>
    fetch(`${running.url}${path}`, { headers: key === null ? {} : { 'SERVICE-API-KEY': key } });

  it('listens on 127.0.0.1 on a free port', () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('serves a read, a paged list and a mutation', async () => {
    const segment = await get('/console/v1/segments/employees');
    expect(segment.status).toBe(200);
    expect(segment.headers.get('content-type')).toContain('application/json');
    expect((await segment.json()).data.id).toBe('employees');

    const list = await (await get('/console/v1/events?page=2&limit=5')).json();
    expect(list.pagination.previousPage).toBe('/console/v1/events?page=1&limit=5');

    const approved = await fetch(`${running.url}/console/v1/release_pipeline_triggers/trg_4/approve`, {
      method: 'PUT',
      headers: {
        'SERVICE-API-KEY': KEY,
        'content-type': 'application/json',
        'x-respect-review-settings': 'true',
      },
      body: JSON.stringify({ phaseID: 'ph_1' }),
    });
    expect(approved.status).toBe(200);
    expect((await approved.json()).data.currentPhaseID).toBe('ph_2');
    expect(running.sandbox.requests.at(-1)?.headers['x-respect-review-settings']).toBe('true');
  });

  it('answers 401 without a key', async () => {
    const r = await get('/console/v1/roles/admin', null);
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ status: 401 });
  });

  it('hangs until the client times out, and closing releases what still hangs', async () => {
    const other = await startSandbox({ faults: { hangRate: 1 } });
    try {
      await expect(
        fetch(`${other.url}/console/v1/roles/admin`, {
          headers: { 'SERVICE-API-KEY': KEY },
          signal: AbortSignal.timeout(100),
        }),
      ).rejects.toThrow();
      // A second hung request stays open until close().
      const stillOpen = fetch(`${other.url}/console/v1/roles/admin`, {
        headers: { 'SERVICE-API-KEY': KEY },
      }).then(
        (r) => r.status,
        () => 'connection closed',
      );
      await new Promise((r) => setTimeout(r, 50));
      await other.close();
      expect([503, 'connection closed']).toContain(await stillOpen);
    } finally {
      await other.close();
    }
  });
});

describe('npm run sandbox (src/sandbox/main.ts)', () => {
  it('prints a banner with the URL, serves, and stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/main.ts'], {
      env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_EVENT_COUNT: '100', SANDBOX_LATENCY_MS: '1-3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
      });
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${out}`)), 15_000);
        child.stdout.on('data', () => {
          const m = /base URL\s+(http:\/\/\S+)/.exec(out);
          if (m?.[1]) {
            clearTimeout(timer);
            resolve(m[1]);
          }
        });
      });
      expect(out).toContain('triggers 12');
      expect(out).toContain('events 100 (newest-first)');
      const r = await fetch(`${url}/console/v1/segments?limit=1`, { headers: { 'SERVICE-API-KEY': KEY } });
      expect(r.status).toBe(200);
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
