/**
 * A JSON body that starts with a UTF-8 byte order mark (some Windows-hosted gateways and
 * serializers write one) was refused as "not JSON" by both senders: node:http and a streamed
 * fetch body keep the BOM, and `JSON.parse` refuses it. RFC 8259 §8.1 lets a parser ignore it, so
 * one leading BOM is skipped, for a 2xx body and an error body alike; a second is not JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadRequestError, createConsoleClient, ResponseValidationError } from '../../src/console/index.js';
import { type ScriptedServer, SEGMENT, startScriptedServer } from './helpers/scripted-server.js';

const BOM = '\uFEFF';
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

const client = (options: { fetch?: typeof fetch } = {}) =>
  createConsoleClient({
    baseUrl: server.url,
    apiKey: 'test-key',
    maxRetries: 0,
    mutationBudget: false,
    ...options,
  });

/** A fetch whose body streams, without content-length: read chunk by chunk, as an encoded body is. */
const streamingFetch: typeof fetch = async (input, init) => {
  const answer = await fetch(input, init);
  const bytes = new Uint8Array(await answer.arrayBuffer());
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  return new Response(body, { status: answer.status, headers: { 'content-type': 'application/json' } });
};

const withBom = (status: number, body: unknown) => () => ({
  status,
  body: BOM + JSON.stringify(body),
  headers: { 'content-type': 'application/json; charset=utf-8' },
});

describe.each([
  ['node:http', {}],
  ['fetch, body streamed', { fetch: streamingFetch }],
  ['fetch, body read whole', { fetch }],
] as const)('a JSON body with a leading BOM (%s)', (_, options) => {
  it('is read', async () => {
    server.setScript(withBom(200, { message: 'ok', data: SEGMENT }));
    await expect(client(options).segments.get('seg_1')).resolves.toMatchObject({ id: SEGMENT.id });
  });

  it('is read in an error answer too', async () => {
    server.setScript(
      withBom(400, { message: 'invalid', errors: [{ property: 'phaseID', errorMessage: 'not current' }] }),
    );
    const error = await client(options)
      .segments.get('seg_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).errors).toEqual([{ property: 'phaseID', errorMessage: 'not current' }]);
  });

  it('is not JSON with a second BOM', async () => {
    server.setScript(() => ({
      status: 200,
      body: BOM + BOM + JSON.stringify({ message: 'ok', data: SEGMENT }),
    }));
    const error = await client(options)
      .segments.get('seg_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).kind).toBe('not-json');
  });
});
