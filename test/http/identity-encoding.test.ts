/** Content codings are case-insensitive: a body sent with `Content-Encoding: Identity` is read as is. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { type ScriptedServer, SEGMENT, startScriptedServer } from '../console/helpers/scripted-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const client = () =>
  createConsoleClient({
    baseUrl: server.url,
    apiKey: 'test-key-123456',
    mutationBudget: false,
    maxRetries: 0,
    sleep: async () => {},
  });

describe('response body encodings (node sender)', () => {
  it('reads a body sent with `Content-Encoding: Identity` (content codings are case-insensitive, RFC 9110 8.4.1)', async () => {
    server.setScript(() => ({
      status: 200,
      headers: { 'content-type': 'application/json', 'content-encoding': 'Identity' },
      body: JSON.stringify({ message: 'Segment read successfully.', data: SEGMENT }),
    }));
    await expect(client().segments.get('seg_1')).resolves.toMatchObject({ id: 'seg_1' });
  });
});
