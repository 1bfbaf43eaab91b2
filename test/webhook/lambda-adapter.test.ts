/**
 * The webhook's own Lambda adapter (src/webhook/lambda-adapter.ts) answers every event as
 * hono/aws-lambda's `handle` did: the same result (status, body, headers, base64 flag) and the
 * same request log line and queued message, for HTTP API (v2), Function URL and REST API (v1)
 * events, with text and base64 bodies, an oversized body, a forged or repeated signature, an
 * unknown route and a header no Request takes. Each event goes through the webhook app once
 * behind each adapter, each app with its own in-memory queue and marks.
 */
import { handle } from 'hono/aws-lambda';
import { describe, expect, it } from 'vitest';
import { handleLambda } from '../../src/webhook/lambda-adapter.js';
import { MAX_BODY_BYTES } from '../../src/webhook/slack-signature.js';
import { EVENT_SHAPES, type HttpRequestSpec, lambdaContext } from '../helpers/http-events.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  SIGNING_SECRET,
  sign,
  slackHeaders,
} from '../helpers/slack-requests.js';
import { buildApp, recordingSqs } from './harness.js';

/** The events' arrival (http-events.ts) and a moment later: Slack's timestamps are from then. */
const ARRIVED = 1_790_000_000_000;
const NOW = ARRIVED + 40;
const TS = Math.floor(NOW / 1000);

type Result = { statusCode: number; body: string; isBase64Encoded?: boolean; headers?: unknown };

/** One webhook app behind an adapter: its results, log lines and sent messages. */
function behind(adapter: 'handle' | 'ours') {
  const { sqs, sent } = recordingSqs();
  const { app, requestLines } = buildApp({ now: () => NOW, sqs });
  const handler = (adapter === 'ours' ? handleLambda(app) : handle(app)) as unknown as (
    event: unknown,
    context: unknown,
  ) => Promise<Result>;
  // Each line without the logger's own clock's `time`: the two apps run a moment apart.
  const lines = () => requestLines().map(({ time: _time, ...line }) => line);
  return { handler, sent, requestLines: lines };
}

/** The event through both adapters: what `handle` answered, what ours answered, and more. */
async function both(makeEvent: (spec: HttpRequestSpec) => unknown, spec: HttpRequestSpec) {
  const before = behind('handle');
  const after = behind('ours');
  const theirs = await before.handler(makeEvent(spec), lambdaContext());
  const ours = await after.handler(makeEvent(spec), lambdaContext());
  return { theirs, ours, before, after };
}

const signed = (body: string, extra: Record<string, string> = {}): Record<string, string> => ({
  ...slackHeaders(body, { timestamp: TS }),
  ...extra,
});

describe.each(Object.entries(EVENT_SHAPES))('our Lambda adapter with %s events', (_shape, makeEvent) => {
  it.each([false, true])('queues a signed approval as handle did (base64 body: %s)', async (base64) => {
    const body = commandBody({ text: 'approve trg_1 ph_1 Grüße aus Köln 日本語' });
    const spec = { method: 'POST', path: '/slack/commands', headers: signed(body), body, base64 };
    const { theirs, ours, before, after } = await both(makeEvent, spec);
    expect(ours).toEqual(theirs);
    expect(ours.statusCode).toBe(200);
    expect(ours.isBase64Encoded).toBe(false);
    expect(JSON.parse(ours.body).text).toContain('Queued');
    expect(after.sent).toEqual(before.sent);
    expect(after.sent).toHaveLength(1);
    expect(after.requestLines()).toEqual(before.requestLines());
    expect(after.requestLines()[0]).toMatchObject({ outcome: 'queued', latencyMs: 40 });
  });

  it('answers help, a usage error and an interaction as handle did', async () => {
    for (const text of ['help', 'approve']) {
      const body = commandBody({ text });
      const spec = { method: 'POST', path: '/slack/commands', headers: signed(body), body, base64: true };
      const { theirs, ours } = await both(makeEvent, spec);
      expect(ours).toEqual(theirs);
      expect(ours.statusCode).toBe(200);
    }
    const click = interactionBody(blockActionsPayload({ actionId: 'approve', value: 'not-a-button' }));
    const spec = { method: 'POST', path: '/slack/interactions', headers: signed(click), body: click };
    const { theirs, ours } = await both(makeEvent, spec);
    expect(ours).toEqual(theirs);
    expect(ours).toMatchObject({ statusCode: 200, body: '' });
  });

  it('answers an ssl_check with an empty 200 as handle did', async () => {
    const body = 'ssl_check=1&token=deprecated';
    const { theirs, ours } = await both(makeEvent, {
      method: 'POST',
      path: '/slack/commands',
      headers: signed(body),
      body,
    });
    expect(ours).toEqual(theirs);
    expect(ours).toMatchObject({ statusCode: 200, body: '' });
  });

  it('refuses a body over 64 KiB with 413, and takes one of exactly 64 KiB, as handle did', async () => {
    const fill = (size: number) => {
      const base = commandBody({ text: 'help' });
      return `${base}&pad=${'x'.repeat(size - base.length - 5)}`;
    };
    const over = fill(MAX_BODY_BYTES + 1);
    const refused = await both(makeEvent, {
      method: 'POST',
      path: '/slack/commands',
      headers: signed(over),
      body: over,
      base64: true,
    });
    expect(refused.ours).toEqual(refused.theirs);
    expect(refused.ours.statusCode).toBe(413);
    expect(refused.after.requestLines()).toEqual(refused.before.requestLines());
    expect(refused.after.requestLines()[0]).toMatchObject({ status: 413, reason: expect.any(String) });
    const exact = fill(MAX_BODY_BYTES);
    expect(Buffer.byteLength(exact)).toBe(MAX_BODY_BYTES);
    const taken = await both(makeEvent, {
      method: 'POST',
      path: '/slack/commands',
      headers: signed(exact),
      body: exact,
    });
    expect(taken.ours).toEqual(taken.theirs);
    expect(taken.ours.statusCode).toBe(200);
  });

  it('refuses a forged, a repeated and a stale signature with 401 and its reason, as handle did', async () => {
    const body = commandBody({ text: 'approve trg_1 ph_1' });
    const fresh = slackHeaders(body, { timestamp: TS });
    const cases: Array<Record<string, string | string[]>> = [
      slackHeaders(body, { timestamp: TS, secret: 'forged' }),
      { ...fresh, 'x-slack-signature': [sign('forged', String(TS), body), fresh['x-slack-signature']!] },
      slackHeaders(body, { timestamp: TS - 301 }),
      { 'content-type': 'application/x-www-form-urlencoded' },
    ];
    for (const headers of cases) {
      const { theirs, ours, before, after } = await both(makeEvent, {
        method: 'POST',
        path: '/slack/commands',
        headers,
        body,
      });
      expect(ours).toEqual(theirs);
      expect(ours.statusCode).toBe(401);
      expect(JSON.parse(ours.body)).toMatchObject({ error: expect.stringMatching(/^signature_/) });
      expect(after.requestLines()).toEqual(before.requestLines());
      expect(after.sent).toEqual([]);
    }
  });

  it('answers GET /health, an unknown route with a query, a missing body and odd requests as handle did', async () => {
    const specs: HttpRequestSpec[] = [
      { method: 'GET', path: '/health' },
      { method: 'GET', path: '/wp-admin', query: 'a=1&b=x%20y' },
      { method: 'POST', path: '/slack/commands', headers: signed('') },
      // Normalized as a Request normalizes its URL; a GET with a body is refused (400) as it refuses one.
      { method: 'GET', path: '/slack/../health' },
      { method: 'GET', path: '/health', body: 'x' },
      { method: 'post', path: '/health' },
    ];
    for (const spec of specs) {
      const { theirs, ours } = await both(makeEvent, spec);
      expect(ours).toEqual(theirs);
    }
  });

  it('takes a header with non-ASCII characters and refuses one no Request takes, as handle did', async () => {
    const body = commandBody({ text: 'help' });
    const accented = await both(makeEvent, {
      method: 'POST',
      path: '/slack/commands',
      headers: signed(body, { 'x-note': 'Grüße' }),
      body,
    });
    expect(accented.ours).toEqual(accented.theirs);
    expect(accented.ours.statusCode).toBe(200);
    const broken = await both(makeEvent, {
      method: 'POST',
      path: '/slack/commands',
      headers: signed(body, { 'x-note': 'one\ntwo' }),
      body,
    });
    expect(broken.ours).toEqual(broken.theirs);
    expect(broken.ours).toMatchObject({ statusCode: 400, body: 'Invalid request' });
    expect(broken.after.sent).toEqual([]);
  });
});

describe('our Lambda adapter with an event that names no domain', () => {
  it('refuses a host header that puts credentials in the URL (400), as a Request and handle did', async () => {
    const make = (spec: HttpRequestSpec) => {
      const event = EVENT_SHAPES['API Gateway REST API (v1)'](spec) as unknown as {
        requestContext: Record<string, unknown>;
        headers: Record<string, string>;
      };
      delete event.requestContext.domainName;
      event.headers.host = 'user:secret@abc123.execute-api.eu-central-1.amazonaws.com';
      return event;
    };
    const { theirs, ours } = await both(make, { method: 'GET', path: '/health' });
    expect(theirs).toMatchObject({ statusCode: 400, body: 'Invalid request' });
    expect(ours).toEqual(theirs);
  });
});

describe('our Lambda adapter, what handle did not do', () => {
  it('logs an event it cannot make a request of at warn, without the header', async () => {
    const { app } = buildApp({ now: () => NOW });
    const warned: Array<[string, unknown]> = [];
    const logger = {
      warn: (message: string, fields?: unknown) => warned.push([message, fields]),
      error: () => {},
    };
    const body = commandBody({ text: 'help' });
    const event = EVENT_SHAPES['API Gateway HTTP API (v2)']({
      method: 'POST',
      path: '/slack/commands',
      headers: signed(body, { 'x-note': 'one\ntwo' }),
      body,
    });
    const res = await handleLambda(app, { logger })(event, lambdaContext());
    expect(res.statusCode).toBe(400);
    expect(warned).toEqual([
      [
        'request',
        { outcome: 'invalid_request', status: 400, reason: 'a header or the URL is not valid HTTP' },
      ],
    ]);
  });
});

describe('our Lambda adapter outside Lambda', () => {
  it('leaves the app answering ordinary Requests with their bodies (app.request, the local stack)', async () => {
    const { app } = buildApp({ now: () => NOW });
    const body = commandBody({ text: 'help' });
    const res = await app.request('/slack/commands', {
      method: 'POST',
      headers: slackHeaders(body, { timestamp: TS, secret: SIGNING_SECRET }),
      body,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toContain('What you can do');
  });
});
