/**
 * startSandbox: serves a sandbox over real HTTP on loopback (port 0 = any free port). `close()`
 * answers hung requests first, then drops every connection, so tests and Ctrl-C end promptly.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';

export type StartSandboxOptions = SandboxOptions & { port?: number; host?: string };

export type RunningSandbox = { url: string; sandbox: Sandbox; close(): Promise<void> };

export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const { port = 0, host = '127.0.0.1', ...sandboxOptions } = options;
  const sandbox = createSandbox(sandboxOptions);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: sandbox.app.fetch, port, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host}:${address.port}`;
  let closed: Promise<void> | undefined;
  return {
    url,
    sandbox,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        sandbox.releaseHangs();
        server.close((err) => (err ? reject(err) : resolve()));
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      return closed;
    },
  };
}
