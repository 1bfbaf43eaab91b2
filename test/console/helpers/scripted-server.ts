/**
 * A tiny HTTP server on 127.0.0.1 (port 0) for client tests that need answers the sandbox
 * does not give on demand: exact error bodies, Retry-After values, hangs, dropped sockets.
 * It records what it received (method, raw URL, headers, body) so tests can assert on it.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createConsoleClient } from '../../../src/console/index.js';
import type { CreateTeam } from '../../../src/console/schemas/teams.js';

export interface Received {
  method: string;
  /** The raw request target, exactly as the client sent it. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Reply =
  | { status?: number; headers?: Record<string, string>; body?: unknown }
  | 'hang'
  | 'destroy';

export type Script = (request: Received, index: number) => Reply | Promise<Reply>;

export interface ScriptedServer {
  url: string;
  requests: Received[];
  /** Replace the answers for the following requests. */
  setScript(script: Script): void;
  close(): Promise<void>;
}

export async function startScriptedServer(
  initial: Script = () => ({ status: 404 }),
): Promise<ScriptedServer> {
  let script = initial;
  const requests: Received[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received: Received = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(received);
    const reply = await script(received, requests.length - 1);
    if (reply === 'hang') return;
    if (reply === 'destroy') {
      req.socket.destroy();
      return;
    }
    const body =
      reply.body === undefined
        ? ''
        : typeof reply.body === 'string'
          ? reply.body
          : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, {
      ...(typeof reply.body === 'string' ? {} : { 'content-type': 'application/json' }),
      ...reply.headers,
    });
    res.end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setScript(next) {
      script = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Registers beforeAll/afterAll for a scripted server in the current scope and returns
 * `server` (a stand-in that reads the started server, so `server.url`, `server.requests`
 * and `server.setScript` work as usual) and `client(overrides?)`, a Console client on it
 * with `{ apiKey: 'test-key', maxRetries: 0, mutationBudget: false }` unless overridden.
 */
export function useScriptedServer(initial?: Script): {
  server: ScriptedServer;
  client: (
    overrides?: Partial<Parameters<typeof createConsoleClient>[0]>,
  ) => ReturnType<typeof createConsoleClient>;
} {
  let started: ScriptedServer | undefined;
  beforeAll(async () => {
    started = await startScriptedServer(initial);
  });
  afterAll(() => current().close());
  const current = (): ScriptedServer => {
    if (!started) throw new Error('the scripted server is not started yet (use it inside a test or hook)');
    return started;
  };
  const server: ScriptedServer = {
    get url() {
      return current().url;
    },
    get requests() {
      return current().requests;
    },
    setScript: (script) => current().setScript(script),
    close: () => current().close(),
  };
  const client = (overrides: Partial<Parameters<typeof createConsoleClient>[0]> = {}) =>
    createConsoleClient({
      baseUrl: server.url,
      apiKey: 'test-key',
      maxRetries: 0,
      mutationBudget: false,
      ...overrides,
    });
  return { server, client };
}

/** A teams.create body with these name, members and admins and every other list empty. */
export function newTeam(name: string, members: string[], admins: string[]): CreateTeam {
  return {
    name,
    members,
    admins,
    defaultGateMetrics: [],
    defaultExperimentPrimaryMetrics: [],
    defaultExperimentSecondaryMetrics: [],
    defaultHoldoutMetrics: [],
    defaultTargetApplications: [],
    changeTeamConfigs: 'anyone',
    reviewApproval: 'anyone',
  };
}

/** A success envelope. */
export function ok(data: unknown, message = 'ok'): Reply {
  return { status: 200, body: { message, data } };
}

/** A list envelope whose pagination points at `nextPage`. */
export function page(data: unknown[], nextPage: string | null, pageNumber = 1): Reply {
  return {
    status: 200,
    body: {
      message: 'listed',
      data,
      pagination: {
        itemsPerPage: data.length,
        pageNumber,
        totalItems: 1000,
        nextPage,
        previousPage: null,
        all: '',
      },
    },
  };
}

/** A port with nothing listening on it (bound then released). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export const SEGMENT = {
  id: 'seg_1',
  type: 'id_list',
  isEnabled: true,
  description: 'beta users',
  lastModifierName: 'Ada',
  lastModifierID: 'u1',
  count: 3,
  tags: [],
};
