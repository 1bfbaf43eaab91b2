/**
 * Our Lambda adapter when a middleware replaces the app's reply after the handler (`c.res = new
 * Response(c.res.body, c.res)`, as hono's own setter, `c.header` after the reply, etag's clone
 * and many middlewares do). A text reply is made without a body under the adapter (its text rides
 * beside it); a Response made from it used to carry no body, and the adapter answered Lambda with
 * an EMPTY body while `app.request` tests, which never run the adapter, still passed. Each event
 * goes through the same app behind hono/aws-lambda's `handle` and ours: the same result.
 */
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { etag } from 'hono/etag';
import { secureHeaders } from 'hono/secure-headers';
import { describe, expect, it } from 'vitest';
import { handleLambda, textReply } from '../../src/webhook/lambda-adapter.js';
import { EVENT_SHAPES, type HttpRequestSpec, lambdaContext } from '../helpers/http-events.js';

const JSON_TEXT = JSON.stringify({ text: 'Queued `trg_1` – Grüße 日本語' });

/** An app whose replies are text replies, behind middlewares that replace or re-make `c.res`. */
function appWith(middleware: 'replace' | 'header' | 'secure-headers' | 'etag') {
  const app = new Hono();
  if (middleware === 'replace')
    app.use(async (c, next) => {
      await next();
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set('x-replaced', 'yes');
    });
  if (middleware === 'header')
    app.use(async (c, next) => {
      await next();
      c.header('x-after', 'yes'); // after the reply: hono makes a new Response from it
    });
  if (middleware === 'secure-headers') app.use(secureHeaders());
  if (middleware === 'etag') app.use(etag());
  app.post('/reply', (c) => textReply(c, JSON_TEXT, 200, { 'content-type': 'application/json' }));
  app.get('/page', (c) => textReply(c, 'a page – ü', 200, { 'content-type': 'text/plain; charset=UTF-8' }));
  app.get('/bytes', (c) => textReply(c, 'bytes ü', 200, { 'content-type': 'application/octet-stream' }));
  app.post('/missing', (c) => textReply(c, '{"error":"nope"}', 404, { 'content-type': 'application/json' }));
  return app;
}

type Result = { statusCode: number; body: string; isBase64Encoded: boolean };

const SPECS: HttpRequestSpec[] = [
  { method: 'POST', path: '/reply', body: 'x=1' },
  { method: 'GET', path: '/page' },
  { method: 'GET', path: '/bytes' },
  { method: 'POST', path: '/missing', body: 'x=1' },
  { method: 'HEAD', path: '/page' },
];

describe.each(['replace', 'header', 'secure-headers', 'etag'] as const)(
  'our Lambda adapter behind a middleware that re-makes the reply (%s)',
  (middleware) => {
    it.each(Object.entries(EVENT_SHAPES))(
      'answers %s events as handle did, body included',
      async (_, make) => {
        for (const spec of SPECS) {
          const app = appWith(middleware);
          const theirs = (await handle(app)(make(spec) as never, lambdaContext())) as Result;
          const ours = await handleLambda(app)(make(spec) as never, lambdaContext());
          expect({ spec, ours }).toEqual({ spec, ours: theirs });
          if (spec.method !== 'HEAD') expect(ours.body).not.toBe('');
        }
      },
    );
  },
);
