import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createConsoleClient } from '../../src/console/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { encodeButtonValue } from '../../src/slack/button-value.js';
import type { HeldRecord } from '../../src/state/held.js';
import type { PauseState } from '../../src/state/pause.js';
import { COMMANDS } from '../../src/webhook/commands.js';
import { handleLambda } from '../../src/webhook/lambda-adapter.js';
import { EVENT_SHAPES, lambdaContext } from '../helpers/http-events.js';
import {
  blockActionsPayload,
  commandBody,
  interactionBody,
  SIGNING_SECRET,
  sign,
} from '../helpers/slack-requests.js';
import { buildApp, recordingSqs } from './harness.js';

const sandbox = createSandbox({ seed: 11 });
const consoleClient = createConsoleClient({
  baseUrl: 'http://sandbox.local',
  apiKey: 'sandbox-key',
  mutationBudget: false,
  maxRetries: 0,
  fetch: async (input, init) => sandbox.app.fetch(new Request(input, init)),
});

/** The question the worker asked (held, waiting for an answer): the fuzzed buttons mostly carry it. */
const ASKED = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_3',
  phaseId: 'ph_1',
  requestedBy: { source: 'events', id: 'release_checks_passed' },
  requestedAt: '2026-11-22T02:00:00Z',
  requestId: 'evt-1',
} as const;
const ASKED_HELD: HeldRecord = {
  requestId: ASKED.requestId,
  action: ASKED.action,
  target: 'trigger trg_3 phase ph_1',
  requester: 'events:release_checks_passed',
  why: 'ask',
  rule: 'ask',
  reason: 'a rule asks',
  since: '2026-11-22T02:00:01.000Z',
  request: ASKED,
};

/** The one clock of the webhook and of the signer and oracle here (a whole second: Slack's timestamps are seconds). */
const NOW_MS = Date.parse('2026-11-23T10:00:00Z');

function harness() {
  let pause: PauseState = { paused: false };
  const { sqs, sent } = recordingSqs();
  const vetoes: string[] = [];
  const built = buildApp({
    now: () => NOW_MS,
    console: consoleClient,
    sqs,
    pause: {
      read: async () => pause,
      write: async (change) => {
        pause = { paused: change.paused, by: change.by };
      },
    },
    writeVeto: async (key, veto) => {
      vetoes.push(key);
      return { recorded: true, veto };
    },
    held: {
      page: async (_size, after) => ({ rows: after === undefined ? [ASKED_HELD] : [] }),
      read: async (requestId) => (requestId === ASKED.requestId ? ASKED_HELD : undefined),
      cancel: async () => ({ ok: false, code: 'not-allowed', message: 'not in this test' }),
    },
  });
  return { ...built, sent, vetoes, handler: handleLambda(built.app) };
}

/** Independent oracle: could this request carry a valid v0 signature (at most five minutes off, on the same clock)? */
function validlySigned(headers: Record<string, string | string[]>, body: Buffer): boolean {
  const sig = headers['x-slack-signature'];
  const ts = headers['x-slack-request-timestamp'];
  if (typeof sig !== 'string' || typeof ts !== 'string') return false;
  if (!/^\d+$/.test(ts) || Math.abs(NOW_MS / 1000 - Number(ts)) > 300) return false;
  return sig === sign(SIGNING_SECRET, ts, body);
}

const word = fc.oneof(
  fc.constantFrom(...COMMANDS.map((command) => command.name)),
  fc.constantFrom(
    'trg_1',
    'ph_1',
    'checkout_redesign',
    'test',
    'new_checkout_copy',
    'admin',
    'beta_testers',
    'purchase',
    '2',
    '0',
    '-1',
    '99999999',
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('&amp;', '&lt;script&gt;', '`', '../..', '%2F', '__proto__', 'constructor', '\u0000', '🚀'),
);
const text = fc.array(word, { maxLength: 6 }).map((words) => words.join(' '));
const user = fc.constantFrom(
  'U0ADMIN',
  'U0RELEASE',
  'U0OPS',
  'U0NOBODY',
  '__proto__',
  '',
  'U 1',
  'x'.repeat(70),
);
const team = fc.constantFrom('T0001', 'T0OTHER', '', 'T0001,T0002');

const buttonValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constant(encodeButtonValue(ASKED)),
  },
  fc.string({ maxLength: 60 }),
  fc.base64String({ maxLength: 80 }),
);

const wellFormed = fc.constantFrom(
  'approve trg_1 ph_1 because',
  'disable-groups checkout_redesign test',
  'archive old_cfg',
  'pause drill',
  'resume',
  'status',
);

const commandBodies = fc.oneof(
  {
    arbitrary: fc
      .record({
        text: wellFormed,
        userId: fc.constantFrom('U0ADMIN', 'U0RELEASE'),
        teamId: fc.constant('T0001'),
      })
      .map((f) => commandBody(f)),
    weight: 3,
  },
  fc.record({ text, userId: user, teamId: team }).map((f) => commandBody(f)),
  fc.constantFrom('ssl_check=1', ''),
);

const interactionBodies = fc.oneof(
  {
    arbitrary: fc
      .record({ actionId: fc.constantFrom('autopilot_approve', 'autopilot_deny'), value: buttonValue })
      .map((p) => interactionBody(blockActionsPayload({ ...p, userId: 'U0ADMIN', teamId: 'T0001' }))),
    weight: 3,
  },
  fc
    .record({
      actionId: fc.constantFrom('autopilot_approve', 'autopilot_deny', 'other'),
      value: buttonValue,
      userId: user,
      teamId: team,
    })
    .map((p) => interactionBody(blockActionsPayload(p))),
  fc.constantFrom('payload=', 'payload=null', 'payload=%7B%22type%22%3A%22block_actions%22%7D', ''),
);

/** A path and a body: mostly the right body for the route, sometimes anything anywhere. */
const target = fc.oneof(
  { arbitrary: fc.tuple(fc.constant('/slack/commands'), commandBodies), weight: 4 },
  { arbitrary: fc.tuple(fc.constant('/slack/interactions'), interactionBodies), weight: 3 },
  fc.tuple(
    fc.constantFrom(
      '/slack/commands',
      '/slack/interactions',
      '/health',
      '/',
      '/slack/commands/x',
      '/SLACK/COMMANDS',
    ),
    fc.oneof(commandBodies, interactionBodies, fc.string({ maxLength: 200 })),
  ),
);

type Mutation =
  | { kind: 'none' }
  | { kind: 'flip'; at: number }
  | { kind: 'append'; extra: string }
  | { kind: 'shift-time'; seconds: number }
  | { kind: 'drop-header'; name: string }
  | { kind: 'repeat-signature' }
  | { kind: 'retry' }
  | { kind: 'wrong-secret' }
  | { kind: 'upper-signature' };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 4 },
  fc.nat().map((at) => ({ kind: 'flip' as const, at })),
  fc.string({ minLength: 1, maxLength: 5 }).map((extra) => ({ kind: 'append' as const, extra })),
  fc.integer({ min: -900, max: 900 }).map((seconds) => ({ kind: 'shift-time' as const, seconds })),
  fc
    .constantFrom('x-slack-signature', 'x-slack-request-timestamp')
    .map((name) => ({ kind: 'drop-header' as const, name })),
  fc.constant({ kind: 'repeat-signature' as const }),
  fc.constant({ kind: 'retry' as const }),
  fc.constant({ kind: 'wrong-secret' as const }),
  fc.constant({ kind: 'upper-signature' as const }),
);

function build(bodyText: string, m: Mutation) {
  let body = Buffer.from(bodyText, 'utf8');
  let ts = NOW_MS / 1000;
  if (m.kind === 'shift-time') ts += m.seconds;
  const headers: Record<string, string | string[]> = {
    'content-type': 'application/x-www-form-urlencoded',
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': sign(m.kind === 'wrong-secret' ? 'other-secret' : SIGNING_SECRET, String(ts), body),
  };
  if (m.kind === 'flip' && body.length > 0) {
    body = Buffer.from(body);
    const at = m.at % body.length;
    body[at] = body[at]! ^ 0x01;
  }
  if (m.kind === 'append') body = Buffer.concat([body, Buffer.from(m.extra, 'utf8')]);
  if (m.kind === 'drop-header') delete headers[m.name];
  if (m.kind === 'repeat-signature')
    headers['x-slack-signature'] = [headers['x-slack-signature'] as string, 'v0=00'];
  if (m.kind === 'retry') headers['x-slack-retry-num'] = '1';
  if (m.kind === 'upper-signature')
    headers['x-slack-signature'] = (headers['x-slack-signature'] as string).toUpperCase();
  return { body, headers };
}

describe('fuzzed requests', () => {
  it('never answer 5xx and never enqueue or veto without a valid signature', async () => {
    const h = harness();
    const shapes = Object.values(EVENT_SHAPES);
    await fc.assert(
      fc.asyncProperty(
        target,
        mutation,
        fc.oneof({ arbitrary: fc.constant('POST'), weight: 8 }, fc.constantFrom('GET', 'PUT')),
        fc.nat({ max: shapes.length - 1 }),
        fc.boolean(),
        async ([path, bodyText], m, method, shape, base64) => {
          const { body, headers } = build(bodyText, m);
          const valid = validlySigned(headers, body);
          const sentBefore = h.sent.length;
          const vetoesBefore = h.vetoes.length;
          // API Gateway would hand over a GET body, but no Request can carry one: the adapter answers 400 first.
          const event = shapes[shape]!({
            method,
            path,
            headers,
            ...(method === 'GET' ? {} : { body, base64 }),
          });
          const res = (await h.handler(event as never, lambdaContext())) as { statusCode: number };
          expect(res.statusCode).toBeLessThan(500);
          if (h.sent.length > sentBefore || h.vetoes.length > vetoesBefore) expect(valid).toBe(true);
          // A Slack retry never queues a second action (a repeated Deny just rewrites the same veto):
          // it queues at most once, and only a request id its first delivery did not queue.
          if (m.kind === 'retry' && h.sent.length > sentBefore) {
            const ids = h.sent.map(
              (input) =>
                (input as { MessageAttributes?: { requestId?: { StringValue?: string } } }).MessageAttributes
                  ?.requestId?.StringValue,
            );
            expect(h.sent.length).toBe(sentBefore + 1);
            expect(ids.slice(0, sentBefore)).not.toContain(ids[sentBefore]);
          }
        },
      ),
      { numRuns: 400 },
    );
    // The property must have exercised the enqueue and veto paths, or it proves little.
    expect(h.sent.length).toBeGreaterThan(5);
    expect(h.vetoes.length).toBeGreaterThan(0);
  });

  it('never answer 5xx for random bytes and random headers', async () => {
    const h = harness();
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.dictionary(
          fc.constantFrom(
            'x-slack-signature',
            'x-slack-request-timestamp',
            'content-type',
            'content-length',
            'x-slack-retry-num',
          ),
          fc.string({ maxLength: 80 }).map((v) => v.replace(/[\r\n\0]/g, '')),
        ),
        fc.constantFrom('/slack/commands', '/slack/interactions'),
        async (bytes, headers, path) => {
          const init: RequestInit = { method: 'POST', body: bytes };
          const safe = new Headers();
          for (const [k, v] of Object.entries(headers)) {
            try {
              safe.set(k, v);
            } catch {
              // not a legal header value: HTTP would not carry it either
            }
          }
          if (safe.has('content-length')) safe.delete('content-length');
          init.headers = safe;
          const res = await h.app.request(`http://localhost${path}`, init);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
    expect(h.sent).toEqual([]);
  });
});
