import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedSlashCommand, slackSignatureHeaders, toCurl } from '../../src/local/sign.js';
import {
  describeSlackMessage,
  type SlackReceiver,
  startSlackReceiver,
} from '../../src/local/slack-receiver.js';

describe('signing Slack requests for the banner and the demo', () => {
  it("matches the example in Slack's documentation", () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(slackSignatureHeaders('8f742231b10e8888abcd99yyyzzz85a5', body, 1531420618)).toEqual({
      'x-slack-request-timestamp': '1531420618',
      'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    });
  });

  it('builds a copy-paste curl whose quoting survives an apostrophe in the text', () => {
    const request = signedSlashCommand('http://127.0.0.1:8787', 'secret', {
      text: "approve trg_1 ph_1 it's fine",
      userId: 'U0ADMIN',
      teamId: 'T0001',
      responseUrl: 'http://127.0.0.1:9/response/x',
    });
    const curl = toCurl(request);
    expect(curl).toContain("'http://127.0.0.1:8787/slack/commands'");
    expect(curl).toContain('it%27s+fine');
    expect(curl).not.toContain('secret');
  });
});

describe('the Slack receiver', () => {
  let receiver: SlackReceiver;
  beforeAll(async () => {
    receiver = await startSlackReceiver({ print: false, keep: 2 });
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('keeps the last posts, serves them at GET /posts and answers "ok" like Slack', async () => {
    for (const text of ['one', 'two', 'three']) {
      const response = await fetch(receiver.responseUrl('r1'), {
        method: 'POST',
        body: JSON.stringify({ text }),
      });
      expect(await response.text()).toBe('ok');
    }
    const posts = (await (await fetch(`${receiver.url}/posts?since=1`)).json()) as Array<{
      body: { text: string };
    }>;
    expect(posts.map((p) => p.body.text)).toEqual(['two', 'three']);
    expect((await receiver.waitFor((p) => p.path === '/response/r1')).seq).toBe(2);
  });

  it('renders Block Kit in plain words, buttons included', () => {
    const text = describeSlackMessage({
      text: 'fallback',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: 'Approve trg_1?' } },
        { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Approve' } }] },
      ],
    });
    expect(text).toBe('Approve trg_1?\n[Approve]');
  });
});
