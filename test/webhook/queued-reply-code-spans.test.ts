/**
 * Review (Slack text): the "Queued" replies to slash commands showed the target escaped but bare,
 * unlike every other post (`actionWords`: each id and group name in a code span). An id may hold
 * `:`, so `approve rel:tada: ph_1` was answered "Queued approve_phase for trigger rel🎉": an emoji
 * where the person typed an id, not what was queued. Both the first answer and the one to Slack's
 * retry now say what is queued with `actionWords`. Against the emulators.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { SlackBlock } from '../../src/webhook/blocks.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';
import { drainQueue } from './queue-helpers.js';

const { emu, table } = emulatorsForFile();
beforeEach(async () => {
  await drainQueue(emu.sqs, emu.queueUrl);
});

type Reply = { text: string; blocks?: SlackBlock[] };

async function post(
  app: ReturnType<typeof buildApp>['app'],
  body: string,
  headers: Record<string, string> = {},
) {
  const res = await app.request(signedRequest('/slack/commands', body, { extraHeaders: headers }));
  expect(res.status).toBe(200);
  return (await res.json()) as Reply;
}

const sectionText = (reply: Reply) =>
  String((reply.blocks?.[0]?.text as { text?: string } | undefined)?.text);

describe('the "Queued" reply to a slash command', () => {
  it('shows each id and group name in a code span, as every other reply does', async () => {
    const { app } = buildApp({ sqs: emu.sqs, queueUrl: emu.queueUrl, table });
    const approve = await post(app, commandBody({ text: 'approve rel:tada: ph_1' }));
    expect(sectionText(approve)).toContain('*Queued:* approve phase `ph_1` of trigger `rel:tada:`');
    expect(approve.text).toContain('Queued: approve phase `ph_1` of trigger `rel:tada:`');

    const groups = await post(app, commandBody({ text: 'disable-groups exp:fire: b:x: a' }));
    expect(sectionText(groups)).toContain('disable groups `b:x:`, `a` of experiment `exp:fire:`');

    const archive = await post(app, commandBody({ text: 'archive cfg:wave: unused' }));
    expect(sectionText(archive)).toContain('archive config `cfg:wave:`');
  });

  it('says the same when it is queued on Slack’s retry', async () => {
    const body = commandBody({ text: 'approve rel:tada: ph_2', triggerId: 'lost.spans' });
    const unreachable = {
      send: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'NetworkingError' });
      },
    };
    const down = buildApp({ sqs: unreachable as never, queueUrl: emu.queueUrl, table });
    expect((await post(down.app, body)).text).toContain('*not* queued');

    const up = buildApp({ sqs: emu.sqs, queueUrl: emu.queueUrl, table });
    const retry = await post(up.app, body, {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_timeout',
    });
    expect(sectionText(retry)).toContain(
      "*Queued on Slack's retry:* approve phase `ph_2` of trigger `rel:tada:`",
    );
    expect(retry.text).toContain('so it is queued now: approve phase `ph_2` of trigger `rel:tada:`');
  });
});
