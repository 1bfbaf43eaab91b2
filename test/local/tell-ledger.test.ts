/**
 * The chaos run's tell ledger (src/local/tell-ledger.ts), a pure function of the Slack receiver's
 * posts and the run's facts. The posts are the worker's own messages (src/worker/replies.ts), so a
 * headline the ledger no longer reads fails here, not silently in a chaos run.
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import {
  type RawPost,
  readPost,
  type TellFacts,
  tellFailures,
  tellLedger,
} from '../../src/local/tell-ledger.js';
import { askMessage, givenUpMessage, type OutcomeResult, outcomeMessage } from '../../src/worker/replies.js';

const request = (id: string): ActionRequest & { requestId: string } => ({
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_1',
  phaseId: 'ph_1',
  requestedBy: { source: 'ci', id: 'chaos/round-0' },
  requestedAt: '2026-11-23T10:00:00Z',
  requestId: id,
});

let seq = 0;
const outcome = (
  id: string,
  result: OutcomeResult,
  extra: { replayOf?: string; mayHaveBeenDone?: boolean } = {},
) =>
  outcomeMessage({
    request: request(id),
    requestId: id,
    result,
    rule: 'r',
    reason: 'why',
    dryRun: false,
    ...extra,
  });
const toChannel = (body: unknown): RawPost => ({ seq: ++seq, path: '/channel', body });
const toRequester = (id: string, body: unknown): RawPost => ({ seq: ++seq, path: `/response/${id}`, body });

const facts = (over: Partial<TellFacts> = {}): TellFacts => ({
  finals: new Map(),
  withReplyUrl: new Set(),
  channelOwed: new Set(),
  deliveries: new Map(),
  crashed: new Set(),
  ...over,
});

describe('reading a post', () => {
  it('reads the end and the request of every message the worker sends', () => {
    const cases: Array<[unknown, string]> = [
      [outcome('a', 'approved'), 'done'],
      [outcome('a', 'approved', { replayOf: 'b' }), 'done'],
      [outcome('a', 'groups-disabled'), 'done'],
      [outcome('a', 'archived'), 'done'],
      [outcome('a', 'would-mutate'), 'would-mutate'],
      [outcome('a', 'denied'), 'denied'],
      [outcome('a', 'denied', { mayHaveBeenDone: true }), 'denied'],
      [outcome('a', 'stale'), 'stale'],
      [outcome('a', 'rejected'), 'rejected'],
      [outcome('a', 'cancelled'), 'cancelled'],
      [outcome('a', 'deferred'), 'deferred'],
      [outcome('a', 'asked'), 'asked'],
      [askMessage(request('a'), { rule: 'r', reason: 'why' }), 'asked'],
      [
        givenUpMessage({
          request: request('a'),
          requestId: 'a',
          attempts: 5,
          lastFailure: '500',
          mayHaveReached: true,
        }),
        'given-up',
      ],
    ];
    for (const [body, end] of cases) {
      expect(readPost(toChannel(body)), JSON.stringify(body)).toMatchObject({
        to: 'channel',
        requestId: 'a',
        end,
      });
      expect(readPost(toRequester('a', body))).toMatchObject({ to: 'requester', requestId: 'a', end });
    }
  });

  it('takes the request a replay is about, not the one it names as having done it', () => {
    expect(readPost(toChannel(outcome('a', 'approved', { replayOf: 'b' })))?.requestId).toBe('a');
  });
});

describe('the tell ledger', () => {
  it('passes ends told once to the channel and to their requester, and repeated to a redelivered one', () => {
    const ledger = tellLedger(
      [
        toChannel(outcome('a', 'approved')),
        toRequester('a', outcome('a', 'approved')),
        toRequester('a', outcome('a', 'approved', { replayOf: 'a' })),
        toChannel(outcome('b', 'denied')),
      ],
      facts({
        finals: new Map([
          ['a', 'approved'],
          ['b', 'denied'],
        ]),
        withReplyUrl: new Set(['a']),
        channelOwed: new Set(['a', 'b']),
        deliveries: new Map([['a', 2]]),
      }),
      true,
    );
    expect(tellFailures(ledger)).toEqual([]);
    expect(ledger.repeats).toEqual([
      { requestId: 'a', to: 'requester', end: 'done', count: 2, explained: true },
    ]);
  });

  it('catches a request told two different ends, and an end other than its final', () => {
    const ledger = tellLedger(
      [toRequester('a', outcome('a', 'cancelled')), toChannel(outcome('a', 'approved'))],
      facts({
        finals: new Map([['a', 'approved']]),
        withReplyUrl: new Set(['a']),
        channelOwed: new Set(['a']),
      }),
      true,
    );
    expect(ledger.contradictions).toEqual([
      expect.objectContaining({ requestId: 'a', ends: ['cancelled', 'done'], final: 'approved' }),
    ]);
    expect(ledger.mismatches).toEqual([
      { requestId: 'a', to: 'requester', final: 'approved', told: 'cancelled' },
    ]);
    expect(tellFailures(ledger)).toEqual([
      '1 request(s) told two different ends',
      '1 telling(s) of an end other than the recorded final',
    ]);
  });

  it('catches an ended request never told to its requester or to the channel', () => {
    const ledger = tellLedger(
      [toRequester('b', outcome('b', 'denied'))],
      facts({
        finals: new Map([
          ['a', 'approved'],
          ['b', 'denied'],
        ]),
        withReplyUrl: new Set(['a', 'b']),
        channelOwed: new Set(['a', 'b']),
      }),
      true,
    );
    expect(ledger.untoldRequester).toEqual(['a']);
    expect(ledger.untoldChannel).toEqual(['a', 'b']);
    expect(tellFailures(ledger)).toEqual([
      '1 ended request(s) never told to their requester',
      '2 ended request(s) never told to the channel',
    ]);
  });

  it('counts apart an untold end whose message is in the DLQ (an operator redrives it), and fails the others', () => {
    const ended = {
      finals: new Map([
        ['a', 'approved'],
        ['b', 'denied'],
      ]),
      withReplyUrl: new Set(['a', 'b']),
      channelOwed: new Set<string>(),
    };
    const ledger = tellLedger([], facts({ ...ended, inDlq: new Set(['a']) }), true);
    expect(ledger.untoldInDlq).toEqual(['a']);
    expect(ledger.untoldRequester).toEqual(['b']);
    expect(tellFailures(ledger)).toEqual(['1 ended request(s) never told to their requester']);
  });

  it('allows the channel an end twice only after a crash of that request, and a requester only after a crash or a redelivery', () => {
    const posts = [
      toChannel(outcome('a', 'approved')),
      toChannel(outcome('a', 'approved')),
      toRequester('b', outcome('b', 'denied')),
      toRequester('b', outcome('b', 'denied')),
    ];
    const ended = {
      finals: new Map([
        ['a', 'approved'],
        ['b', 'denied'],
      ]),
      channelOwed: new Set<string>(),
    };
    const noCrash = tellLedger(posts, facts(ended), true);
    expect(tellFailures(noCrash)).toEqual(['2 end(s) told twice with no crash or redelivery']);
    // A redelivery explains the requester's repeat (a copy replays the end to it), not the channel's.
    const redelivered = tellLedger(
      posts,
      facts({
        ...ended,
        deliveries: new Map([
          ['a', 2],
          ['b', 2],
        ]),
      }),
      true,
    );
    expect(tellFailures(redelivered)).toEqual(['1 end(s) told twice with no crash or redelivery']);
    const crashed = tellLedger(posts, facts({ ...ended, crashed: new Set(['a', 'b']) }), true);
    expect(tellFailures(crashed)).toEqual([]);
    expect(crashed.repeats.map((r) => [r.requestId, r.to, r.count])).toEqual([
      ['a', 'channel', 2],
      ['b', 'requester', 2],
    ]);
  });

  it('does not owe the channel an end when no channel is set, nor a requester without a reply URL', () => {
    const ledger = tellLedger(
      [],
      facts({ finals: new Map([['a', 'approved']]), channelOwed: new Set(['a']) }),
      false,
    );
    expect(tellFailures(ledger)).toEqual([]);
  });
});
