import { describe, expect, it } from 'vitest';
import { SlackSignatureError } from '../../src/webhook/errors.js';
import { MAX_BODY_BYTES, verifySlackSignature } from '../../src/webhook/slack-signature.js';
import { commandBody, SIGNING_SECRET, sign, signedRequest, slackHeaders } from '../helpers/slack-requests.js';
import { buildApp, memorySecrets, recordingSqs } from './harness.js';

const NOW = Date.parse('2026-11-22T03:00:00Z');
const TS = String(NOW / 1000);

function verify(headers: Record<string, string>, body: string | Buffer, signingSecret = SIGNING_SECRET) {
  return () =>
    verifySlackSignature({
      headers: new Headers(headers),
      body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
      signingSecret,
      now: NOW,
    });
}

function outcomeOf(fn: () => void): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(SlackSignatureError);
    return (error as SlackSignatureError).outcome;
  }
}

describe('Slack signature verification', () => {
  const body = commandBody({ text: 'status' });

  it('accepts a request signed with the signing secret', () => {
    expect(outcomeOf(verify(slackHeaders(body, { timestamp: TS }), body))).toBe('ok');
  });

  it('rejects a request signed with another secret', () => {
    expect(outcomeOf(verify(slackHeaders(body, { timestamp: TS, secret: 'wrong' }), body))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects a request older than five minutes', () => {
    const old = String(NOW / 1000 - 301);
    expect(outcomeOf(verify(slackHeaders(body, { timestamp: old }), body))).toBe('signature_expired');
    const edge = String(NOW / 1000 - 300);
    expect(outcomeOf(verify(slackHeaders(body, { timestamp: edge }), body))).toBe('ok');
  });

  it('rejects a request more than five minutes in the future', () => {
    const future = String(NOW / 1000 + 301);
    expect(outcomeOf(verify(slackHeaders(body, { timestamp: future }), body))).toBe('signature_future');
  });

  it('rejects a body changed after signing', () => {
    const headers = slackHeaders(body, { timestamp: TS });
    expect(outcomeOf(verify(headers, body.replace('status', 'pause')))).toBe('signature_mismatch');
  });

  it('verifies the raw bytes of non-ASCII text', () => {
    const encoded = commandBody({ text: 'pause Grüße 🚀 日本語 wegen Störung' });
    expect(outcomeOf(verify(slackHeaders(encoded, { timestamp: TS }), encoded))).toBe('ok');
    // Unencoded UTF-8 in the body: the HMAC covers the bytes, not a re-encoded string.
    const text = 'text=Grüße 🚀 日本語 wegen Störung&user_id=U0ADMIN';
    expect(outcomeOf(verify(slackHeaders(Buffer.from(text, 'utf8'), { timestamp: TS }), text))).toBe('ok');
    // Same characters, other normalisation (NFD): different bytes, so a different signature.
    expect(outcomeOf(verify(slackHeaders(text, { timestamp: TS }), text.normalize('NFD')))).toBe(
      'signature_mismatch',
    );
  });

  it('rejects missing, repeated and malformed headers', () => {
    const headers = slackHeaders(body, { timestamp: TS });
    const { 'x-slack-signature': _s, ...noSignature } = headers;
    const { 'x-slack-request-timestamp': _t, ...noTimestamp } = headers;
    expect(outcomeOf(verify(noSignature, body))).toBe('signature_missing');
    expect(outcomeOf(verify(noTimestamp, body))).toBe('signature_missing');
    const sig = headers['x-slack-signature']!;
    expect(outcomeOf(verify({ ...headers, 'x-slack-signature': `${sig}, ${sig}` }, body))).toBe(
      'signature_repeated',
    );
    expect(outcomeOf(verify({ ...headers, 'x-slack-request-timestamp': `${TS},${TS}` }, body))).toBe(
      'signature_repeated',
    );
    expect(outcomeOf(verify({ ...headers, 'x-slack-signature': sig.toUpperCase() }, body))).toBe(
      'signature_malformed',
    );
    expect(outcomeOf(verify({ ...headers, 'x-slack-request-timestamp': '1e9' }, body))).toBe(
      'signature_bad_timestamp',
    );
  });

  it('never accepts a signature made with an empty secret', () => {
    const headers = { ...slackHeaders(body, { timestamp: TS }), 'x-slack-signature': sign('', TS, body) };
    expect(outcomeOf(verify(headers, body, ''))).toBe('signature_unconfigured');
  });
});

describe('the webhook refuses unverified requests', () => {
  it('answers 401 with a short reason, logs no body and enqueues nothing', async () => {
    const { sqs, sent } = recordingSqs();
    const { app, lines } = buildApp({ sqs });
    const body = commandBody({ text: 'approve trg_1 ph_1 secret-reason-text' });
    const res = await app.request(signedRequest('/slack/commands', body, { secret: 'not-the-secret' }));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'signature_mismatch', message: 'signature does not match' });
    expect(sent).toEqual([]);
    const log = JSON.stringify(lines);
    expect(log).not.toContain('secret-reason-text');
    expect(log).not.toContain('trg_1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', reason: 'signature does not match' });
    expect(lines.at(-1)).toMatchObject({
      message: 'request',
      route: 'POST /slack/commands',
      outcome: 'signature_mismatch',
      status: 401,
    });
  });

  it('answers 413 for a body over 64 KiB declared by Content-Length, before reading it', async () => {
    const { app } = buildApp();
    const big = 'x'.repeat(MAX_BODY_BYTES + 1);
    const res = await app.request(signedRequest('/slack/commands', big));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('answers 413 for a streamed body that grows past 64 KiB without a Content-Length', async () => {
    const { app } = buildApp();
    const chunk = new Uint8Array(16 * 1024).fill(97);
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        if (pulls > 100) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await app.request(
      new Request('http://localhost/slack/commands', {
        method: 'POST',
        headers: slackHeaders('irrelevant'),
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(pulls).toBeLessThan(10);
  });

  it('re-reads a rotated signing secret once and then accepts the request', async () => {
    const secrets = memorySecrets('old-secret');
    secrets.rotate('new-secret');
    const { app } = buildApp({ secrets });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'help' }), { secret: 'new-secret' }),
    );
    expect(res.status).toBe(200);
    expect(secrets.refreshes()).toBe(1);
  });

  it('still refuses when the refreshed secret does not match either', async () => {
    const secrets = memorySecrets('old-secret');
    const { app } = buildApp({ secrets });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'help' }), { secret: 'forged' }),
    );
    expect(res.status).toBe(401);
    expect(secrets.refreshes()).toBe(1);
  });

  it('answers an ssl_check with 200 and nothing else, once verified', async () => {
    const { sqs, sent } = recordingSqs();
    const { app } = buildApp({ sqs });
    const body = 'ssl_check=1&token=deprecated';
    const ok = await app.request(signedRequest('/slack/commands', body));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('');
    const forged = await app.request(signedRequest('/slack/commands', body, { secret: 'forged' }));
    expect(forged.status).toBe(401);
    expect(sent).toEqual([]);
  });
});
