import { createServer, type Socket } from 'node:net';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSqsClient } from '../../src/queue/actions-queue.js';
import { readPause, writePause } from '../../src/state/pause.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from './harness.js';
import { drainQueue } from './queue-helpers.js';

const { emu, table } = emulatorsForFile();
beforeEach(async () => {
  await drainQueue(emu.sqs, emu.queueUrl);
  await writePause(table, { paused: false, by: 'test', at: new Date() });
});

function harness() {
  return buildApp({ sqs: emu.sqs, queueUrl: emu.queueUrl, table });
}

async function command(
  app: ReturnType<typeof harness>['app'],
  text: string,
  userId = 'U0ADMIN',
  extra: Record<string, string> = {},
) {
  const res = await app.request(
    signedRequest('/slack/commands', commandBody({ text, userId }), { extraHeaders: extra }),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as { response_type: string; text: string; blocks?: unknown[] };
}

describe('mutations from Slack', () => {
  it('queues an approval exactly as the action request contract describes it and answers with the request id', async () => {
    const { app, requestLines } = harness();
    const before = Date.now();
    const reply = await command(app, 'approve trg_3 ph_2 smoke tests green');
    const [message, ...more] = await drainQueue(emu.sqs, emu.queueUrl, 2);
    expect(more).toEqual([]);
    expect(message!.body).toEqual({
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_3',
      phaseId: 'ph_2',
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
      requestedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      reason: 'smoke tests green',
      requestId: expect.stringMatching(/^slack-[0-9a-f]{32}$/),
      reply: {
        slackResponseUrl: 'https://hooks.slack.com/commands/T0001/1234/abcd',
        issuedAt: expect.any(String),
      },
    });
    expect(Date.parse(message!.body.requestedAt as string)).toBeGreaterThanOrEqual(before - 1000);
    // Slack issued the URL with the command: the worker stops posting there after 30 minutes.
    expect((message!.body.reply as { issuedAt: string }).issuedAt).toBe(message!.body.requestedAt);
    const requestId = message!.body.requestId as string;
    expect(message!.attributes).toMatchObject({
      action: 'approve_phase',
      requester: 'slack:U0ADMIN',
      requestId,
    });
    expect(reply.response_type).toBe('ephemeral');
    expect(reply.text).toContain('Queued');
    expect(reply.text).toContain(requestId);
    expect(requestLines().at(-1)).toMatchObject({
      route: 'POST /slack/commands',
      command: 'approve',
      userId: 'U0ADMIN',
      teamId: 'T0001',
      outcome: 'queued',
      requestId,
      status: 200,
      latencyMs: expect.any(Number),
    });
  });

  it('queues disable-groups with the named groups', async () => {
    const { app } = harness();
    await command(app, 'disable-groups exp_checkout test_b test_a');
    const [message] = await drainQueue(emu.sqs, emu.queueUrl, 2);
    expect(message!.body).toMatchObject({
      action: 'disable_groups',
      experimentId: 'exp_checkout',
      groupNames: ['test_b', 'test_a'],
      requestedBy: { source: 'slack', id: 'U0ADMIN' },
    });
  });

  it('queues an archive with the given reason, or one naming the person', async () => {
    const { app } = harness();
    await command(app, 'archive old_banner replaced by hero_v2');
    await command(app, 'archive older_banner');
    const messages = await drainQueue(emu.sqs, emu.queueUrl, 2);
    expect(messages.map((m) => [m.body.configId, m.body.reason])).toEqual([
      ['old_banner', 'replaced by hero_v2'],
      ['older_banner', 'Archived from Slack by slack:U0ADMIN'],
    ]);
  });

  it('does not queue a second action when Slack retries the same request', async () => {
    const { app } = harness();
    const body = commandBody({ text: 'approve trg_4 ph_1', triggerId: 'retry.1' });
    const first = await app.request(signedRequest('/slack/commands', body));
    const retry = await app.request(
      signedRequest('/slack/commands', body, {
        extraHeaders: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' },
      }),
    );
    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    const firstId = ((await first.json()) as { text: string }).text.match(/slack-[0-9a-f]{32}/)?.[0];
    const retryText = ((await retry.json()) as { text: string }).text;
    expect(retryText).toContain('not queued a second time');
    expect(retryText).toContain(firstId);
    const messages = await drainQueue(emu.sqs, emu.queueUrl, 1);
    expect(messages).toHaveLength(1);
  });

  it('refuses a mutation without the grant, names it, and queues nothing', async () => {
    const { app } = harness();
    const reply = await command(app, 'archive new_checkout_copy', 'U0RELEASE');
    expect(reply.text).toContain('`archive_config` grant');
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
  });

  it('tells the person when the queue cannot be reached, and nothing is queued', async () => {
    const unreachable = createSqsClient({ endpoint: 'http://127.0.0.1:9' });
    const { app, requestLines } = buildApp({ sqs: unreachable, queueUrl: emu.queueUrl, table });
    const reply = await command(app, 'approve trg_5 ph_1');
    expect(reply.text).toContain('was *not* queued');
    expect(requestLines().at(-1)).toMatchObject({
      level: 'warn',
      outcome: 'queue_unreachable',
      status: 200,
      error: { name: expect.any(String) },
    });
    unreachable.destroy();
    const missing = buildApp({ sqs: emu.sqs, queueUrl: `${emu.queueUrl}-missing`, table });
    const again = await command(missing.app, 'approve trg_5 ph_1');
    expect(again.text).toContain('was *not* queued');
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
  });

  it('answers in time that it could not confirm the send when the queue hangs', async () => {
    const sockets: Socket[] = [];
    const hung = createServer((socket) => {
      sockets.push(socket); // accepts the connection, never answers
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const port = (hung.address() as { port: number }).port;
    const sqs = createSqsClient({ endpoint: `http://127.0.0.1:${port}` });
    try {
      const { app, requestLines } = buildApp({ sqs, queueUrl: emu.queueUrl, table, deadlineMs: 300 });
      const reply = await command(app, 'approve trg_7 ph_1');
      expect(reply.text).toContain('did not confirm');
      expect(reply.text).toContain('trying again is safe');
      expect(requestLines().at(-1)).toMatchObject({ outcome: 'queue_unconfirmed', status: 200 });
    } finally {
      sqs.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => hung.close(resolve));
    }
  });

  it('answers in time when the state table does not confirm a pause', async () => {
    const { app, requestLines } = buildApp({
      deadlineMs: 200,
      pause: { read: async () => ({ paused: false }), write: () => new Promise<undefined>(() => undefined) },
    });
    const reply = await command(app, 'pause', 'U0OPS');
    expect(reply.text).toContain('did not confirm the pause in time');
    expect(requestLines().at(-1)).toMatchObject({ outcome: 'state_unconfirmed' });
  });

  it('pauses with who and why where the worker reads it, and answers in the channel', async () => {
    const { app } = harness();
    const reply = await command(app, 'pause incident 4711 &amp; friends', 'U0OPS');
    expect(reply.response_type).toBe('in_channel');
    expect(reply.text).toBe('console-autopilot paused');
    expect(await readPause(table)).toMatchObject({
      paused: true,
      by: 'slack:U0OPS',
      reason: 'incident 4711 & friends',
    });
    const resumed = await command(app, 'resume', 'U0OPS');
    expect(resumed.response_type).toBe('in_channel');
    expect(await readPause(table)).toEqual({ paused: false });
    expect(await drainQueue(emu.sqs, emu.queueUrl)).toEqual([]);
  });

  it('never lets a reason mention the whole channel in an in-channel reply', async () => {
    const { app } = harness();
    // Slack escapes <, > and & in command text; the reason is stored as typed, and escaped again for display.
    const reply = await command(app, 'pause &lt;!channel&gt; &lt;@U0ADMIN&gt; look', 'U0OPS');
    expect(await readPause(table)).toMatchObject({ reason: '<!channel> <@U0ADMIN> look' });
    const shown = JSON.stringify(reply);
    expect(shown).not.toContain('<!channel>');
    expect(shown).not.toContain('<@U0ADMIN>');
    expect(shown).toContain('&lt;!channel&gt;');
  });

  it('refuses pause and resume without the pause grant', async () => {
    const { app } = harness();
    const reply = await command(app, 'pause', 'U0RELEASE');
    expect(reply.text).toContain('`pause` grant');
    expect(await readPause(table)).toMatchObject({ paused: false });
  });

  it('logs one line per request without the body or secrets', async () => {
    const { app, lines } = harness();
    await command(app, 'approve trg_6 ph_1 a-very-private-reason');
    const text = JSON.stringify(lines);
    expect(text).not.toContain('a-very-private-reason');
    expect(text).not.toContain('test-signing-secret');
    expect(text).not.toContain('hooks.slack.com');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', message: 'request' });
    await drainQueue(emu.sqs, emu.queueUrl, 1);
  });
});
