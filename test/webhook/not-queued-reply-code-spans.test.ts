/**
 * The "not queued" replies to a slash command (the queue unreachable, a send it did not confirm,
 * a request that could not be signed) named the request as `approve_phase for trigger rel:tada:
 * phase ph_1`: the ids bare (ids may hold `:`), so Slack showed `rel:tada:` as an emoji, not the
 * id the person typed. Every other reply says what a request does with `actionWords` (each id and
 * group name in a code span); these now do too. Through the real webhook, its queue failing.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import type { SlackBlock } from '../../src/webhook/blocks.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';

type Reply = { text: string; blocks?: SlackBlock[] };

async function post(app: ReturnType<typeof buildApp>['app'], text: string) {
  const res = await app.request(signedRequest('/slack/commands', commandBody({ text })));
  expect(res.status).toBe(200);
  return (await res.json()) as Reply;
}

const sectionText = (reply: Reply) =>
  String((reply.blocks?.[0]?.text as { text?: string } | undefined)?.text);

/** A queue that cannot be reached: every send fails as the SDK fails a refused connection. */
const unreachable = {
  send: async () => {
    throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'NetworkingError' });
  },
} as unknown as Pick<SQSClient, 'send'>;

/** A queue that never answers a send: the webhook's deadline passes first. */
const hanging = { send: () => new Promise(() => {}) } as unknown as Pick<SQSClient, 'send'>;

/** Both the fallback text and the section say what was not queued with each id in a code span. */
function expectSpans(reply: Reply, words: string) {
  expect(sectionText(reply)).toContain(words);
  expect(reply.text).toContain(words);
  expect(reply.text).not.toMatch(/for trigger|approve_phase|disable_groups|archive_config/);
}

describe('the "not queued" reply to a slash command', () => {
  it('shows each id and group name in a code span when the queue cannot be reached', async () => {
    const { app } = buildApp({ sqs: unreachable });
    const approve = await post(app, 'approve rel:tada: ph:x:');
    expectSpans(approve, 'approve phase `ph:x:` of trigger `rel:tada:` was *not* queued');

    const groups = await post(app, 'disable-groups exp:fire: b:x: a');
    expectSpans(groups, 'disable groups `b:x:`, `a` of experiment `exp:fire:` was *not* queued');

    const archive = await post(app, 'archive cfg:wave: unused');
    expectSpans(archive, 'archive config `cfg:wave:` was *not* queued');
  });

  it('shows them in code spans when the queue does not confirm the send in time', async () => {
    const { app } = buildApp({ sqs: hanging, deadlineMs: 200 });
    const reply = await post(app, 'approve rel:tada: ph_1');
    expect(reply.text).toContain('may or may not be queued');
    expectSpans(reply, 'did not confirm approve phase `ph_1` of trigger `rel:tada:` in time');
  });

  it('shows them in code spans when the request could not be signed', async () => {
    const signer = createRequesterSigner(async () => {
      throw new Error('the secret could not be read');
    });
    const { app } = buildApp({ sqs: unreachable, signer });
    const reply = await post(app, 'approve rel:tada: ph_1');
    expectSpans(
      reply,
      'approve phase `ph_1` of trigger `rel:tada:` was *not* queued: console-autopilot could not sign it',
    );
  });
});
