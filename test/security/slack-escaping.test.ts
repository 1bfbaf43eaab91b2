/**
 * Untrusted text never formats Slack. One corpus of mentions, links and entity tricks is run
 * through every message builder we post with (worker outcomes and questions, sweeper event
 * notifications, the webhook's replies and tables), and through the webhook end to end (a pause
 * reason read back by `status`): no text field of any built message may hold a live mention or
 * link that came from the corpus.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { escapeMrkdwn, inlineCode, neutralizeMrkdwn } from '../../src/slack/mrkdwn.js';
import { ruleNotification } from '../../src/sweeper/event-rules.js';
import { ephemeral, fields, inChannel, problem, section, table } from '../../src/webhook/blocks.js';
import { askMessage, type OutcomeResult, outcomeMessage } from '../../src/worker/replies.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { buildApp } from '../webhook/harness.js';

const CORPUS = [
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<@U0ADMIN>',
  '<#C0RELEASE>',
  '<!subteam^S123>',
  '<https://evil.example|click here>',
  '<http://evil.example>',
  '<mailto:x@evil.example|mail>',
  'a &lt;!channel&gt; b',
  '&amp;lt;!here&amp;gt;',
  '<<!channel>>',
  '`<!channel>`',
  '*bold* <!channel> _x_',
  'line\n<!here>',
];

/** Live Slack syntax: a `<` that opens a mention, a broadcast, a channel or a link. */
const LIVE = /<(?:!(?!date\^)|@|#|https?:|mailto:)/i;

function texts(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) texts(v, out);
  else if (value && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) if (key !== 'value') texts(v, out);
  return out;
}

/** `ours`: mentions our own templates write on purpose (the verified caller, `<@U0ADMIN>`). */
function expectInert(message: unknown, input: string, ours: string[] = []) {
  for (const text of texts(message)) {
    const rest = ours.reduce((t, token) => t.replaceAll(token, ''), text);
    expect(rest, `from ${JSON.stringify(input)}`).not.toMatch(LIVE);
  }
}

const request = (evil: string): ActionRequest & { requestId: string } => ({
  version: 1,
  action: 'archive_config',
  configId: 'cfg_1',
  reason: evil,
  requestedBy: { source: 'ci', id: evil.replace(/\s/g, '') || 'x' },
  requestedAt: '2026-11-30T10:00:00Z',
  requestId: 'req-1',
});

const RESULTS: OutcomeResult[] = [
  'approved',
  'groups-disabled',
  'archived',
  'would-mutate',
  'denied',
  'deferred',
  'asked',
  'stale',
  'rejected',
];

describe('every message builder escapes untrusted text', () => {
  it('the escaping helpers leave nothing live, and never escape twice', () => {
    for (const evil of CORPUS) {
      expect(escapeMrkdwn(evil)).not.toMatch(LIVE);
      expect(inlineCode(evil)).not.toMatch(LIVE);
      expect(neutralizeMrkdwn(evil)).not.toMatch(LIVE);
      expect(neutralizeMrkdwn(escapeMrkdwn(evil))).toBe(escapeMrkdwn(evil));
    }
  });

  it('worker outcomes, in blocks and in the fallback text, for every result', () => {
    for (const evil of CORPUS)
      for (const result of RESULTS)
        expectInert(
          outcomeMessage({
            request: request(evil),
            requestId: 'req-1',
            result,
            rule: evil,
            reason: `platform said: ${evil}`,
            dryRun: false,
            deferUntil: new Date('2026-11-30T12:00:00Z'),
            replayOf: evil,
          }),
          evil,
        );
  });

  it('the "ask a human" question', () => {
    for (const evil of CORPUS) expectInert(askMessage(request(evil), { rule: evil, reason: evil }), evil);
  });

  it('sweeper notifications of logged events (every event field is untrusted)', () => {
    const policy = parsePolicy({
      version: 1,
      timezone: 'UTC',
      approvals: { rules: [] },
      sweeper: { eventRules: [{ name: 'tell <!channel>', match: { name: '*' }, notify: true }] },
    });
    const rule = policy.sweeper.eventRules[0]!;
    for (const evil of CORPUS)
      expectInert(
        ruleNotification(rule, {
          id: 'e1',
          name: evil,
          value: evil,
          source: evil,
          userID: evil,
          timestamp: evil,
          metadata: { [evil]: evil, nested: { x: evil } },
        } as unknown as Parameters<typeof ruleNotification>[1]),
        evil,
      );
  });

  it("the webhook's replies: fallback text, problems, fields and tables", () => {
    for (const evil of CORPUS) {
      expectInert(ephemeral(evil, [section(escapeMrkdwn(evil))]), evil);
      expectInert(inChannel(evil), evil);
      expectInert(problem(`The platform answered: ${evil}`), evil);
      expectInert({ blocks: fields([[evil, escapeMrkdwn(evil)]]) }, evil);
      expectInert(table(['id', 'name'], [[evil, evil]]), evil);
    }
  });
});

describe('end to end through the webhook', () => {
  let emu: Emulators;
  beforeAll(async () => {
    emu = await startEmulators();
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it('a pause reason with a broadcast and a link comes back inert, to the channel and in status', async () => {
    const { app } = buildApp({ table: { client: emu.dynamo, tableName: emu.tableName } });
    const reason = '<!channel> <https://evil.example|release notes>';
    const slackEscaped = reason.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    for (const text of [`pause ${slackEscaped}`, `pause ${reason}`, 'status']) {
      const res = await app.request(signedRequest('/slack/commands', commandBody({ text })));
      expect(res.status).toBe(200);
      const body = await res.json();
      expectInert(body, text, ['<@U0ADMIN>']);
      if (text === 'status') expect(JSON.stringify(body)).toContain('&lt;!channel&gt;');
    }
  });
});
