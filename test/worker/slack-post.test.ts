import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { buttonRequest, encodeButtonValue } from '../../src/slack/button-value.js';
import { isAllowedSlackUrl, postToSlack, replyOriginsFromEnv } from '../../src/slack/post.js';
import { rateLimitBackoffSeconds } from '../../src/worker/defer.js';
import { askMessage } from '../../src/worker/replies.js';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';

let capture: SlackCapture;
beforeAll(async () => {
  capture = await startSlackCapture();
});
afterAll(async () => {
  await capture?.close();
});

describe('postToSlack', () => {
  it('accepts only https://hooks.slack.com and listed origins', () => {
    expect(isAllowedSlackUrl('https://hooks.slack.com/services/T/B/X')).toBe(true);
    expect(isAllowedSlackUrl('https://hooks.slack.com.evil.example/x')).toBe(false);
    expect(isAllowedSlackUrl('http://hooks.slack.com/x')).toBe(false);
    expect(isAllowedSlackUrl('https://user:pw@hooks.slack.com/x')).toBe(false);
    expect(isAllowedSlackUrl('http://169.254.169.254/latest/meta-data')).toBe(false);
    expect(isAllowedSlackUrl('http://127.0.0.1:9/x', ['http://127.0.0.1:9'])).toBe(true);
    expect(replyOriginsFromEnv(' http://127.0.0.1:9/any , https://example.test,')).toEqual([
      'http://127.0.0.1:9',
      'https://example.test',
    ]);
    // An entry that is not an http(s) URL is refused, naming the variable but not the entry.
    for (const bad of ['http://127.0.0.1:9, not a url', 'http//localhost:3000', 'file:///etc/passwd'])
      expect(() => replyOriginsFromEnv(bad)).toThrow(
        /^environment variable SLACK_REPLY_ORIGINS .*entry \d is not one$/,
      );
    expect(() => replyOriginsFromEnv('hooks.slack.com/services/T0/B0/secret')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') }),
    );
  });

  it('refuses a URL outside the allow-list without sending anything', async () => {
    const before = capture.posts.length;
    const result = await postToSlack(capture.url('/secret-path'), { text: 'hi' });
    expect(result).toMatchObject({ ok: false, reason: 'refused' });
    expect(result.ok ? '' : result.error).not.toContain('secret-path');
    expect(capture.posts.length).toBe(before);
  });

  it('posts JSON to an allowed origin and reports a Slack-side error as a result', async () => {
    const ok = await postToSlack(
      capture.url('/hook'),
      { text: 'hello' },
      { allowedOrigins: [capture.origin] },
    );
    expect(ok).toEqual({ ok: true, status: 200 });
    expect(capture.posts.at(-1)).toEqual({ path: '/hook', body: { text: 'hello' } });
    capture.setStatus(404);
    const failed = await postToSlack(
      capture.url('/hook'),
      { text: 'x' },
      { allowedOrigins: [capture.origin] },
    );
    capture.setStatus(200);
    expect(failed).toMatchObject({ ok: false, reason: 'http', status: 404 });
    const down = await postToSlack(
      'http://127.0.0.1:1/x',
      { text: 'x' },
      { allowedOrigins: ['http://127.0.0.1:1'] },
    );
    expect(down).toMatchObject({ ok: false, reason: 'network' });
  });
});

describe('delays and back-off', () => {
  it('backs off exponentially in the receive count, or by a longer Retry-After, never past 900 s', () => {
    expect(rateLimitBackoffSeconds(60_000, 1, () => 0)).toBe(60);
    expect(rateLimitBackoffSeconds(5_000, 1, () => 0.5)).toBe(6); // the first refusal's word, taken
    expect(rateLimitBackoffSeconds(5_000, 2, () => 0.5)).toBe(60); // refused again: the schedule's floor
    expect(rateLimitBackoffSeconds(3_600_000, 1, () => 0)).toBe(900);
    expect(rateLimitBackoffSeconds(undefined, 1, () => 0.5)).toBe(15);
    expect(rateLimitBackoffSeconds(undefined, 3, () => 0.5)).toBe(240);
    expect(rateLimitBackoffSeconds(undefined, 30, () => 1)).toBe(900);
  });

  it('without Retry-After, waits out the 15-min window before the queue gives the request up', () => {
    // The queue dead-letters on its last receive that fails: the waits before it, at their shortest.
    const receives = Array.from({ length: MAX_RECEIVE_COUNT - 1 }, (_, i) => i + 1);
    const waits = receives.map((receive) => rateLimitBackoffSeconds(undefined, receive, () => 0));
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThan(15 * 60);
  });
});

describe('the ask message', () => {
  const request = {
    version: 1 as const,
    action: 'approve_phase' as const,
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'schedule' as const, id: 'nightly' },
    requestedAt: '2026-11-23T10:00:00Z',
    requestId: 'req-ask',
    reply: { slackResponseUrl: 'https://hooks.slack.com/actions/T/1/x' },
  };

  it('carries the request (without its reply URL) in both buttons', () => {
    const message = askMessage(request, { rule: 'ask rule', reason: 'a human decides' });
    const actions = message?.blocks?.find((b) => (b as { type: string }).type === 'actions') as {
      elements: Array<{ action_id: string; value: string }>;
    };
    expect(actions.elements.map((e) => e.action_id)).toEqual(['autopilot_approve', 'autopilot_deny']);
    const decoded = JSON.parse(Buffer.from(actions.elements[0]?.value ?? '', 'base64url').toString('utf8'));
    const { reply: _reply, ...withoutReply } = request;
    expect(decoded).toEqual(withoutReply);
  });

  it('shortens a long reason to keep the value under 2000 characters', () => {
    const long = { ...request, reason: 'x'.repeat(3000) };
    const carried = buttonRequest(long);
    expect(carried).toBeDefined();
    expect(encodeButtonValue(carried!).length).toBeLessThan(2000);
  });
});
