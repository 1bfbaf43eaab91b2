/**
 * The Request our Lambda adapter hands the app (src/webhook/event-request.ts): its URL, method
 * and headers are the event's, and it behaves as a Request in everything else (its body, a
 * clone, its signal), as one made with `new Request` from the same parts, without being one to
 * `instanceof` (that would load undici: src/webhook/event-headers.ts).
 */
import { describe, expect, it } from 'vitest';
import { EventHeaders } from '../../src/webhook/event-headers.js';
import { eventRequest, methodOf } from '../../src/webhook/event-request.js';

const URL_ = 'https://abc123.execute-api.eu-central-1.amazonaws.com/slack/commands?a=1';
const bytes = () => new Uint8Array(Buffer.from('text=approve+trg_1&user_id=U0ADMIN', 'utf8'));
const headers = () =>
  new EventHeaders({ 'content-type': 'application/x-www-form-urlencoded', 'x-slack-retry-num': '1' });

describe('the event request', () => {
  it('is a Request with the URL, method and headers it was given', () => {
    const request = eventRequest(URL_, 'POST', headers(), bytes());
    expect(Object.prototype.toString.call(request)).toBe('[object Request]');
    expect(request.url).toBe(URL_);
    expect(request.method).toBe('POST');
    expect(request.headers.get('x-slack-retry-num')).toBe('1');
  });

  it('reads its body, clones and aborts as the Request made from the same parts', async () => {
    const request = eventRequest(URL_, 'POST', headers(), bytes());
    const real = new Request(URL_, { method: 'POST', headers: [...headers()], body: bytes() });
    const copy = request.clone();
    expect(request.bodyUsed).toBe(false);
    expect(await request.text()).toBe(await real.text());
    expect(request.bodyUsed).toBe(true);
    expect(await copy.text()).toBe('text=approve+trg_1&user_id=U0ADMIN');
    expect(request.signal.aborted).toBe(false);
    expect(request.redirect).toBe(real.redirect);
    expect(request.keepalive).toBe(real.keepalive);
  });

  it('has no body when it was given none', async () => {
    const request = eventRequest(URL_, 'GET', headers(), new Uint8Array(0));
    expect(request.body).toBeNull();
    expect(await request.text()).toBe('');
  });
});

describe('the method of an event request, as a Request checks it', () => {
  it('normalizes the standard methods and keeps others as given', () => {
    expect(methodOf('post', true)).toBe('POST');
    expect(methodOf('get', false)).toBe('GET');
    expect(methodOf('Patch', true)).toBe('Patch');
  });

  it('refuses what a Request refuses, with a TypeError', () => {
    for (const [method, body] of [
      ['CONNECT', false],
      ['trace', false],
      ['PO ST', false],
      ['', false],
      ['GET', true],
      ['head', true],
    ] as const) {
      expect(() => methodOf(method, body)).toThrow(TypeError);
      expect(() => new Request(URL_, { method, ...(body ? { body: 'x' } : {}) })).toThrow(TypeError);
    }
  });
});
