/**
 * A stand-in for Slack's webhook hosts in tests: an HTTP server on 127.0.0.1 that records every
 * POST (path and JSON body) and answers "ok" (or a chosen status). Point `SLACK_REPLY_ORIGINS`
 * / `allowedOrigins` at its origin.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedPost {
  path: string;
  body: { text?: string; blocks?: unknown[]; [key: string]: unknown };
}

export interface SlackCapture {
  origin: string;
  posts: CapturedPost[];
  url(path: string): string;
  /** Status to answer with from now on (200 by default). */
  setStatus(status: number): void;
  close(): Promise<void>;
}

export async function startSlackCapture(): Promise<SlackCapture> {
  const posts: CapturedPost[] = [];
  let status = 200;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: CapturedPost['body'] = {};
      try {
        body = JSON.parse(text);
      } catch {
        body = { raw: text };
      }
      posts.push({ path: req.url ?? '/', body });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    posts,
    url: (path) => `${origin}${path}`,
    setStatus: (s) => {
      status = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
