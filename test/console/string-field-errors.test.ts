/**
 * An error body whose `errors[]` holds plain strings (`["phaseID must be the current phase"]`)
 * rather than `{property, errorMessage}` entries: the strings were dropped, so the error's
 * message, `said` (what a chat reply and the audit record tell) and `errors` lost what the platform
 * said. They are kept now, as entries with no property, scrubbed and bounded like the others.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiError, BadRequestError, createConsoleClient } from '../../src/console/index.js';
import { type ScriptedServer, startScriptedServer } from './helpers/scripted-server.js';

const KEY = 'sk-live-QUOLL-0b7e41d9-unmistakable';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

async function failWith(body: unknown): Promise<ApiError> {
  server.setScript(() => ({ status: 400, body }));
  const client = createConsoleClient({
    baseUrl: server.url,
    apiKey: KEY,
    maxRetries: 0,
    mutationBudget: false,
  });
  return (await client.segments.get('seg_1').catch((e: unknown) => e)) as ApiError;
}

describe('an error body whose errors[] holds plain strings', () => {
  it('keeps them in errors, said and the message, beside the object entries', async () => {
    const error = await failWith({
      status: 400,
      message: 'Invalid request',
      errors: ['phaseID must be the current phase', { property: 'name', errorMessage: 'is required' }],
    });
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.errors).toEqual([
      { property: '', errorMessage: 'phaseID must be the current phase' },
      { property: 'name', errorMessage: 'is required' },
    ]);
    expect(error.said).toBe('Invalid request; phaseID must be the current phase; name: is required');
    expect(error.message).toBe(
      'GET /console/v1/segments/seg_1: 400 — Invalid request; phaseID must be the current phase; name: is required',
    );
  });

  it('keeps a string errors[] alone, with no message', async () => {
    const error = await failWith({ errors: ['segment is archived'] });
    expect(error.said).toBe('segment is archived');
    expect(error.message).toBe('GET /console/v1/segments/seg_1: 400 — segment is archived');
  });

  it('scrubs the API key from a string entry that echoes it', async () => {
    const error = await failWith({ message: 'bad', errors: [`key ${KEY} is not valid`] });
    for (const text of [
      error.message,
      error.said ?? '',
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
    ])
      expect(text).not.toContain('QUOLL');
    expect(error.said).toMatch(/^bad; key .+ is not valid$/);
  });

  it('bounds string entries like the others, however many and long', async () => {
    const error = await failWith({
      message: 'bad',
      errors: Array.from({ length: 2_000 }, () => 'e'.repeat(3_000)),
    });
    expect(error.errors?.length).toBeGreaterThan(0);
    for (const entry of error.errors ?? []) expect(entry.errorMessage.length).toBeLessThan(2_100);
    expect(error.said?.length).toBeLessThan(2_100);
    expect(error.message.length).toBeLessThan(2_200);
    expect(JSON.stringify(error).length).toBeLessThan(32_000);
  });
});
