/**
 * Serving a fetch-style app (Hono) on loopback for the local stack and tests, with a close
 * that does not hang on keep-alive connections.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export interface ServedApp {
  url: string;
  port: number;
  close(): Promise<void>;
}

export type FetchApp = { fetch: (request: Request) => Response | Promise<Response> };

export function serveApp(app: FetchApp, options: { port?: number; host?: string } = {}): Promise<ServedApp> {
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch: (request) => app.fetch(request), port: options.port ?? 0, hostname: host },
      (info: AddressInfo) => {
        resolve({
          url: `http://${host}:${info.port}`,
          port: info.port,
          close: () =>
            new Promise<void>((done) => {
              const http = server as Server;
              http.close(() => done());
              http.closeAllConnections?.();
            }),
        });
      },
    ) as Server;
    server.once('error', reject);
  });
}
