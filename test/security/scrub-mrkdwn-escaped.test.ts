/**
 * Every text we post is mrkdwn-escaped (`&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;`) before the
 * last scrub (postToSlack, the webhook's json()). The scrubber knew a secret raw, JSON-, %- and
 * base64-encoded, but not escaped: a Console API key holding `&`, `<` or `>` (the client takes
 * any printable ASCII key) that reaches a message escaped went to Slack intact, and Slack shows
 * `&amp;` as `&`. Here a CI request's reason quotes the key; the policy asks a human, and the
 * question is posted to the channel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { postToSlack } from '../../src/slack/post.js';
import { rememberSecret } from '../../src/util/secret-scrub.js';
import { askMessage, outcomeMessage } from '../../src/worker/replies.js';
import { type SlackCapture, startSlackCapture } from '../helpers/slack-capture.js';

// A key the process holds (the secrets provider and the Console client remember what they use).
const KEY = 'ck_live<9f&3b>2a77d1';

let slack: SlackCapture;
beforeAll(async () => {
  slack = await startSlackCapture();
});
afterAll(async () => {
  await slack?.close();
});

const request: ActionRequest & { requestId: string } = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_1',
  phaseId: 'ph_2',
  requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
  requestedAt: '2026-11-22T10:00:00Z',
  requestId: 'ci-42',
  reason: `deploy with key ${KEY}`,
};

describe('a secret with mrkdwn control characters in a Slack post', () => {
  it('is redacted from the "ask a human" question and from the outcome, escaped as they are', async () => {
    rememberSecret(KEY);
    const question = askMessage(request, { rule: 'ask', reason: 'a rule asks' });
    const outcome = outcomeMessage({
      request,
      requestId: 'ci-42',
      result: 'rejected',
      rule: 'approvals',
      reason: `the platform said: invalid key ${KEY}`,
      dryRun: false,
    });
    for (const message of [question!, outcome]) {
      const posted = await postToSlack(slack.url('/services/T0/B0/x'), message, {
        allowedOrigins: [slack.origin],
      });
      expect(posted.ok).toBe(true);
    }
    const sent = JSON.stringify(slack.posts.map((p) => p.body));
    expect(sent).toContain('[redacted]');
    // Neither the key nor its escaped spelling (which Slack renders as the key) reaches Slack.
    expect(sent).not.toContain(KEY);
    expect(sent).not.toContain('ck_live&lt;9f&amp;3b&gt;2a77d1');
  });
});
