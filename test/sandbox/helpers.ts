/** Shared helpers of the sandbox tests: a fixed clock and a one-line in-process request. */
import type { Sandbox } from '../../src/sandbox/index.js';

export const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
export const DAY = 86_400_000;
export const KEY = 'sandbox-key';

// biome-ignore lint/suspicious/noExplicitAny: tests read response JSON freely; a wrong shape fails the assertion.
export type Reply = { status: number; headers: Headers; text: string; json: any };

export async function call(
  sandbox: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  options: { key?: string | null; raw?: string; signal?: AbortSignal } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const key = options.key === undefined ? KEY : options.key;
  if (key !== null) headers['SERVICE-API-KEY'] = key;
  const init: RequestInit = { method, headers };
  if (options.raw !== undefined) init.body = options.raw;
  else if (body !== undefined) init.body = JSON.stringify(body);
  if (options.signal) init.signal = options.signal;
  const res = await sandbox.app.request(`http://sandbox.test${path}`, init);
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
