/** Content codings are case-insensitive: a body sent with `Content-Encoding: Identity` is read as is. */
import { describe, expect, it } from 'vitest';
import { SEGMENT, useScriptedServer } from '../console/helpers/scripted-server.js';

const scripted = useScriptedServer();
const server = scripted.server;
const client = () => scripted.client({ apiKey: 'test-key-123456', sleep: async () => {} });

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
