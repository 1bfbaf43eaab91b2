/**
 * The contract of an `HttpSend`, run against both senders (node:http and the fetch adapter)
 * and a real server on loopback: the same results, the same three kinds of failure.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpAbortError, HttpTimeoutError } from '../../src/http/errors.js';
import { fetchSend } from '../../src/http/fetch-send.js';
import { createNodeSend, type HttpSend } from '../../src/http/send.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let base: string;
let handler: Handler;
const sockets = new Set<Socket>();
let connections = 0;
const closedSockets: Socket[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      closedSockets.push(socket);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  server.close();
});
beforeEach(() => {
  handler = (_req, res) => res.end('ok');
});

/** The error itself or its cause (fetch wraps connection errors) carries this code. */
function codeOf(error: unknown): string | undefined {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 3; i++) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

const senders: [string, () => HttpSend][] = [
  ['node:http sender', () => createNodeSend()],
  ['fetch adapter', () => fetchSend(fetch)],
];

describe.each(senders)('%s', (_name, make) => {
  const send = make();
  const get = (path: string, timeoutMs = 2_000, signal?: AbortSignal) =>
    send({ method: 'GET', url: base + path, headers: { accept: 'application/json' }, timeoutMs, signal });

  it('returns the status, lower-case headers and the body as text', async () => {
    handler = (_req, res) => {
      res.setHeader('X-Thing', 'one');
      res.setHeader('content-type', 'application/json');
      res.statusCode = 404;
      res.end('{"message":"ünïcode ✓"}');
    };
    const response = await get('/x');
    expect(response.status).toBe(404);
    expect(response.headers['x-thing']).toBe('one');
    expect(response.text).toBe('{"message":"ünïcode ✓"}');
  });

  it('sends the method, headers and body with its length', async () => {
    let seen: Record<string, string | undefined> = {};
    handler = (req, res, body) => {
      seen = {
        method: req.method,
        length: req.headers['content-length'],
        type: req.headers['content-type'],
        body,
      };
      res.end();
    };
    const body = JSON.stringify({ name: 'ä'.repeat(10) });
    await send({
      method: 'PATCH',
      url: `${base}/y`,
      headers: { 'content-type': 'application/json' },
      body,
      timeoutMs: 2_000,
    });
    expect(seen).toEqual({
      method: 'PATCH',
      length: String(Buffer.byteLength(body)),
      type: 'application/json',
      body,
    });
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
  ] as const)('decodes a %s body', async (encoding, compress) => {
    const json = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: `seg_${i}` })) });
    handler = (_req, res) => {
      res.setHeader('content-encoding', encoding);
      res.end(compress(Buffer.from(json)));
    };
    expect((await get('/z')).text).toBe(json);
  });

  it('does not follow redirects', async () => {
    let hits = 0;
    handler = (_req, res) => {
      hits++;
      res.writeHead(302, { location: '/elsewhere' }).end();
    };
    const response = await get('/moved');
    expect(response.status).toBe(302);
    expect(hits).toBe(1);
  });

  it('times out while waiting for the headers, and closes the connection', async () => {
    handler = () => undefined; // never answers
    const closedBefore = closedSockets.length;
    await expect(get('/hang', 100)).rejects.toBeInstanceOf(HttpTimeoutError);
    await expect.poll(() => closedSockets.length).toBeGreaterThan(closedBefore);
  });

  it('times out in the middle of the body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": ['); // and then nothing
    };
    await expect(get('/half', 150)).rejects.toBeInstanceOf(HttpTimeoutError);
  });

  it('fails as a connection error, not a timeout, when the server drops the connection mid-body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"data":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const error = await get('/dropped', 5_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(HttpTimeoutError);
    expect(error).not.toBeInstanceOf(HttpAbortError);
  });

  it('reports an abort by the caller, before and during the request', async () => {
    await expect(get('/x', 2_000, AbortSignal.abort())).rejects.toBeInstanceOf(HttpAbortError);
    handler = () => undefined;
    const controller = new AbortController();
    const pending = get('/hang', 5_000, controller.signal);
    setTimeout(() => controller.abort(), 30);
    await expect(pending).rejects.toBeInstanceOf(HttpAbortError);
  });

  it('fails with the connection error code when nothing listens', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const error = await send({
      method: 'GET',
      url: `http://127.0.0.1:${port}/`,
      headers: {},
      timeoutMs: 2_000,
    }).catch((e: unknown) => e);
    expect(codeOf(error)).toBe('ECONNREFUSED');
  });

  it('keeps the connection alive between requests', async () => {
    await get('/x'); // opens (or reuses) a connection
    const before = connections;
    for (let i = 0; i < 5; i++) await get('/x');
    expect(connections - before).toBe(0);
  });
});

describe('node:http sender limits', () => {
  it('sends again on a new connection when a reused one turns out closed by the server', async () => {
    const seen: string[] = [];
    handler = (req, res, body) => {
      seen.push(`${req.method} ${body}`);
      res.end('ok');
    };
    const send = createNodeSend();
    const post = () => send({ method: 'POST', url: `${base}/p`, headers: {}, body: 'x', timeoutMs: 2_000 });
    await post();
    // The server drops every idle connection; the client has not noticed yet (same tick), so the
    // agent hands the dead socket to the next request, as after a Lambda thaw.
    for (const socket of sockets) socket.destroy();
    const response = await post();
    expect(response.text).toBe('ok');
    expect(seen).toEqual(['POST x', 'POST x']); // once each: the dead connection carried nothing
  });

  it('says when it sent again, and never sends again a request that must not arrive twice', async () => {
    const seen: string[] = [];
    handler = (req, res, body) => {
      seen.push(`${req.method} ${body}`);
      res.end('ok');
    };
    const send = createNodeSend();
    const post = (body: string, resendOnStaleSocket?: boolean) => {
      const request = { method: 'POST', url: `${base}/p`, headers: {}, body, timeoutMs: 2_000 };
      return {
        request,
        sent: send(resendOnStaleSocket === undefined ? request : { ...request, resendOnStaleSocket }),
      };
    };
    await post('a').sent;
    for (const socket of sockets) socket.destroy();
    const again = post('b');
    await again.sent;
    expect((again.request as { resent?: number }).resent).toBe(1);

    await post('c').sent;
    for (const socket of sockets) socket.destroy();
    const create = post('d', false);
    await expect(create.sent).rejects.toMatchObject({ code: expect.stringMatching(/ECONNRESET|EPIPE/) });
    expect(seen).toEqual(['POST a', 'POST b', 'POST c']);
  });

  it('asks for every encoding it decodes, unless the caller chose', async () => {
    const seen: (string | undefined)[] = [];
    handler = (req, res) => {
      seen.push(req.headers['accept-encoding']);
      res.end();
    };
    const send = createNodeSend();
    await send({ method: 'GET', url: `${base}/e`, headers: {}, timeoutMs: 2_000 });
    await send({
      method: 'GET',
      url: `${base}/e`,
      headers: { 'Accept-Encoding': 'identity' },
      timeoutMs: 2_000,
    });
    expect(seen).toEqual(['gzip, deflate, br', 'identity']);
  });

  it('refuses a body over the cap', async () => {
    handler = (_req, res) => res.end('x'.repeat(5_000));
    const send = createNodeSend({ maxResponseBytes: 1_000 });
    await expect(send({ method: 'GET', url: `${base}/big`, headers: {}, timeoutMs: 2_000 })).rejects.toThrow(
      /larger than 1000 bytes/,
    );
  });

  it('refuses a compressed body that expands over the cap', async () => {
    const bomb = gzipSync(Buffer.alloc(10_000_000));
    expect(bomb.length).toBeLessThan(100_000);
    handler = (_req, res) => {
      res.setHeader('content-encoding', 'gzip');
      res.end(bomb);
    };
    const send = createNodeSend({ maxResponseBytes: 1_000_000 });
    await expect(send({ method: 'GET', url: `${base}/bomb`, headers: {}, timeoutMs: 5_000 })).rejects.toThrow(
      /cannot decode the response body/,
    );
  });

  it('refuses, over fetch too, a body over the cap, plain or expanding from gzip', async () => {
    const bomb = gzipSync(Buffer.alloc(10_000_000, 0x20));
    handler = (req, res) => {
      if (req.url === '/bomb') res.setHeader('content-encoding', 'gzip');
      res.end(req.url === '/bomb' ? bomb : 'x'.repeat(5_000));
    };
    const send = fetchSend(fetch, 1_000_000);
    const get = (path: string) =>
      send({ method: 'GET', url: `${base}${path}`, headers: {}, timeoutMs: 5_000 });
    await expect(get('/bomb')).rejects.toThrow(/larger than 1000000 bytes/);
    await expect(
      fetchSend(fetch, 1_000)({ method: 'GET', url: `${base}/big`, headers: {}, timeoutMs: 5_000 }),
    ).rejects.toThrow(/larger than 1000 bytes/);
    expect((await get('/small')).text).toHaveLength(5_000);
  });

  it('refuses an encoding it cannot decode', async () => {
    handler = (_req, res) => {
      res.setHeader('content-encoding', 'zstd');
      res.end('???');
    };
    await expect(
      createNodeSend()({ method: 'GET', url: `${base}/z`, headers: {}, timeoutMs: 2_000 }),
    ).rejects.toThrow(/unsupported content-encoding zstd/);
  });

  it('lets the process exit while an idle keep-alive socket is open', async () => {
    const { spawn } = await import('node:child_process');
    const script = [
      `const { createNodeSend } = await import(${JSON.stringify(new URL('../../src/http/send.ts', import.meta.url).href)});`,
      `const r = await createNodeSend()({ method: 'GET', url: ${JSON.stringify(`${base}/x`)}, headers: {}, timeoutMs: 5000 });`,
      'process.stdout.write(String(r.status));',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    // The server keeps idle connections for 60 s: exiting sooner means the socket did not hold the process.
    const killer = setTimeout(() => child.kill(), 20_000);
    // 'close', not 'exit': stdout (read below) may still be open at 'exit'.
    const [code] = (await once(child, 'close')) as [number | null];
    clearTimeout(killer);
    expect(out).toBe('200');
    expect(code).toBe(0);
  }, 30_000);
});

describe('node:http sender over TLS', () => {
  /** Runs one request from a fresh process (NODE_EXTRA_CA_CERTS is read at start only). */
  async function requestFromChild(url: string, env: NodeJS.ProcessEnv): Promise<string> {
    const { execFile } = await import('node:child_process');
    const script = [
      `const { createNodeSend } = await import(${JSON.stringify(new URL('../../src/http/send.ts', import.meta.url).href)});`,
      'try {',
      `  const r = await createNodeSend()({ method: 'GET', url: ${JSON.stringify(url)}, headers: {}, timeoutMs: 5000 });`,
      "  process.stdout.write(r.status + ' ' + r.text);",
      '} catch (e) { process.stdout.write(String(e.code)); }',
    ].join('\n');
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { env: { ...process.env, ...env }, timeout: 20_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
  }

  it('talks https and verifies the certificate', async () => {
    const { execFileSync } = await import('node:child_process');
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { createServer: createTlsServer } = await import('node:https');
    const dir = mkdtempSync(join(tmpdir(), 'send-tls-'));
    try {
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1']
          .concat(['-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1'])
          .concat(['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
        { stdio: 'ignore' },
      );
      const tls = createTlsServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (_req, res) => res.end('secure'),
      );
      tls.listen(0, '127.0.0.1');
      await once(tls, 'listening');
      const url = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/`;
      try {
        expect(await requestFromChild(url, { NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') })).toBe(
          '200 secure',
        );
        // Without trusting it, the self-signed certificate is refused.
        expect(await requestFromChild(url, {})).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      } finally {
        tls.closeAllConnections();
        tls.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});
