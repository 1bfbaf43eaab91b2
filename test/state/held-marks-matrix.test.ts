/**
 * The marks on a held item exclude each other (src/state/held-marks.ts): for every ordered pair
 * (the first mark written, then the second write), whether the second write is refused and what
 * its caller is told, against dynalite. The rows are written out here by hand, not derived from
 * the module's table, so that a change of the table that changes behaviour fails here.
 */
import { describe, expect, it } from 'vitest';
import { getItem } from '../../src/state/dynamo.js';
import { claimEffect } from '../../src/state/effects.js';
import { heldItemKey, holdRequest, lookNow } from '../../src/state/held.js';
import { markAnswered, unmarkAnswered } from '../../src/state/held-answer.js';
import {
  clearStaleEnding,
  markCancelled,
  markReached,
  startEndingHeld,
  startExecutingHeld,
  stopExecutingHeld,
} from '../../src/state/held-gates.js';
import { emulatorsForFile } from '../helpers/emulators.js';

const { table } = emulatorsForFile();

const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const effect = (id: string) => `effect-${id}`;
/** A time as the rows write it: seconds from NOW. */
const rel = (ms: number) => `${(ms - NOW) / 1000}s`;
const marked = (written: boolean) => (written ? 'marked' : 'refused');

async function hold(id: string, why: 'ask' | 'window' = 'ask') {
  const request = {
    version: 1 as const,
    action: 'approve_phase' as const,
    triggerId: 'trg_1',
    phaseId: 'ph_1',
    requestedBy: { source: 'ci' as const, id: 'x' },
    requestedAt: '2026-11-23T09:00:00.000Z',
    requestId: id,
  };
  const at = '2026-11-23T09:00:01.000Z';
  const record = { requestId: id, action: request.action, target: 't', requester: 'ci:x', why, rule: 'r' };
  await holdRequest(table, { ...record, reason: 'r', since: at, request }, new Date(at));
}

/** The second writes: each says what its caller is told. */
const WRITES: Record<string, (id: string) => Promise<string>> = {
  cancel: (id) => markCancelled(table, id, { by: 'U0CANCEL', at: new Date(NOW).toISOString() }),
  executing: async (id) => gateText(await startExecutingHeld(table, id, `${id}/copy-b`)),
  'executing (Approve copy)': async (id) =>
    gateText(await startExecutingHeld(table, id, 'click-1/copy', false)),
  ending: async (id) =>
    gateText(await startEndingHeld(table, id, NOW + 30_000, { effect: effect(id), nowMs: NOW })),
  'ending (own request)': async (id) =>
    gateText(
      await startEndingHeld(table, id, NOW + 30_000, { effect: effect(id), nowMs: NOW, ownRequest: id }),
    ),
  reached: async (id) => {
    await markReached(table, id, new Date(NOW));
    return marked((await getItem(table, heldItemKey(id)))?.reachedAt !== undefined);
  },
  'answered U1': async (id) => marked(await markAnswered(table, id, 'U1', new Date(NOW))),
  'answered U2': async (id) => marked(await markAnswered(table, id, 'U2', new Date(NOW))),
  denied: async (id) => marked(await lookNow(table, id, new Date(NOW), 'U2')),
  'look (Deny, before its veto)': async (id) => marked(await lookNow(table, id, new Date(NOW))),
};

function gateText(gate: { state: string; untilMs?: number; cancel?: { by: string } }): string {
  if (gate.state === 'cancelled') return `cancelled by ${gate.cancel?.by}`;
  if (gate.untilMs !== undefined) return `${gate.state} until ${rel(gate.untilMs)}`;
  return gate.state;
}

/** The first marks (each must take), written in order on a fresh held question. */
const FIRST: Record<string, (id: string) => Promise<unknown>> = {
  none: async () => {},
  cancel: async (id) => expect(await WRITES.cancel?.(id)).toBe('marked'),
  'executing (live)': async (id) => {
    expect((await startExecutingHeld(table, id, `${id}/copy-a`)).state).toBe('go');
    const claim = { owner: `${id}/copy-a`, lockExpiresAt: NOW + 120_000, nowMs: NOW };
    expect((await claimEffect(table, effect(id), claim)).claimed).toBe(true);
  },
  'executing (dead)': async (id) =>
    expect((await startExecutingHeld(table, id, `${id}/copy-a`)).state).toBe('go'),
  'executing, stopped': async (id) => {
    await FIRST['executing (live)']?.(id);
    await stopExecutingHeld(table, id, `${id}/copy-a`);
  },
  'executing, stopped by another': async (id) => {
    await FIRST['executing (live)']?.(id);
    await stopExecutingHeld(table, id, `${id}/copy-z`);
  },
  reached: async (id) => markReached(table, id, new Date(NOW)),
  'ending (live)': async (id) =>
    expect((await startEndingHeld(table, id, NOW + 60_000, { effect: effect(id), nowMs: NOW })).state).toBe(
      'go',
    ),
  'ending (run out)': async (id) =>
    expect((await startEndingHeld(table, id, NOW - 1_000, { effect: effect(id), nowMs: NOW })).state).toBe(
      'go',
    ),
  'ending (run out), cleared': async (id) => {
    await FIRST['ending (run out)']?.(id);
    await clearStaleEnding(table, id, NOW - 1_000, NOW);
  },
  'ending (live), clear refused': async (id) => {
    await FIRST['ending (live)']?.(id);
    await clearStaleEnding(table, id, NOW + 60_000, NOW);
  },
  'answered U1': async (id) => expect(await markAnswered(table, id, 'U1', new Date(NOW))).toBe(true),
  'answered U1, unmarked': async (id) => {
    await FIRST['answered U1']?.(id);
    await unmarkAnswered(table, id, 'U1');
  },
  'answered U1, unmarked by U2': async (id) => {
    await FIRST['answered U1']?.(id);
    await unmarkAnswered(table, id, 'U2');
  },
  denied: async (id) => expect(await lookNow(table, id, new Date(NOW), 'U2')).toBe(true),
};

/** [first, second, what the second write's caller is told] */
const ROWS: Array<[string, string, string]> = [
  // Nothing on the item: every write takes.
  ['none', 'cancel', 'marked'],
  ['none', 'executing', 'go'],
  ['none', 'executing (Approve copy)', 'go'],
  ['none', 'ending', 'go'],
  ['none', 'ending (own request)', 'go'],
  ['none', 'reached', 'marked'],
  ['none', 'answered U1', 'marked'],
  ['none', 'denied', 'marked'],
  ['none', 'look (Deny, before its veto)', 'marked'],

  // A person's cancel: every other mark yields to it (a reached mark is a fact, never refused).
  ['cancel', 'cancel', 'already-cancelled'],
  ['cancel', 'executing', 'cancelled by U0CANCEL'],
  ['cancel', 'executing (Approve copy)', 'cancelled by U0CANCEL'],
  ['cancel', 'ending', 'cancelled by U0CANCEL'],
  ['cancel', 'ending (own request)', 'cancelled by U0CANCEL'],
  ['cancel', 'reached', 'marked'],
  ['cancel', 'answered U1', 'refused'],
  ['cancel', 'denied', 'refused'],
  ['cancel', 'look (Deny, before its veto)', 'refused'],

  // A live executing mark (its copy holds the effect claim until +120s).
  ['executing (live)', 'cancel', 'executing'],
  ['executing (live)', 'executing', 'go'],
  ['executing (live)', 'executing (Approve copy)', 'go'],
  ['executing (live)', 'ending', 'executing until 120s'],
  ['executing (live)', 'ending (own request)', 'go'],
  ['executing (live)', 'reached', 'marked'],
  ['executing (live)', 'answered U1', 'marked'],
  ['executing (live)', 'denied', 'refused'],
  ['executing (live)', 'look (Deny, before its veto)', 'marked'],

  // An executing mark whose copy died (no effect claim): only the ending gate sees it as dead.
  ['executing (dead)', 'cancel', 'executing'],
  ['executing (dead)', 'executing', 'go'],
  ['executing (dead)', 'ending', 'go'],
  ['executing (dead)', 'ending (own request)', 'go'],
  ['executing (dead)', 'answered U1', 'marked'],
  ['executing (dead)', 'denied', 'refused'],

  // Taken back by its own copy (stopExecutingHeld), and only by it.
  ['executing, stopped', 'cancel', 'marked'],
  ['executing, stopped', 'ending', 'go'],
  ['executing, stopped', 'denied', 'marked'],
  ['executing, stopped by another', 'cancel', 'executing'],
  ['executing, stopped by another', 'ending', 'executing until 120s'],

  // An attempt may have reached the platform: never cancelled nor denied after it.
  ['reached', 'cancel', 'executing'],
  ['reached', 'executing', 'go'],
  ['reached', 'executing (Approve copy)', 'go'],
  ['reached', 'ending', 'go'],
  ['reached', 'ending (own request)', 'go'],
  ['reached', 'reached', 'marked'],
  ['reached', 'answered U1', 'marked'],
  ['reached', 'denied', 'refused'],
  ['reached', 'look (Deny, before its veto)', 'marked'],

  // An ending lease until +60s: a cancel yields while it lasts, the executing gate while it is on.
  ['ending (live)', 'cancel', 'ending'],
  ['ending (live)', 'executing', 'ending until 60s'],
  ['ending (live)', 'executing (Approve copy)', 'ending until 60s'],
  ['ending (live)', 'ending', 'go'],
  ['ending (live)', 'ending (own request)', 'go'],
  ['ending (live)', 'reached', 'marked'],
  ['ending (live)', 'answered U1', 'marked'],
  ['ending (live)', 'denied', 'marked'],
  ['ending (live)', 'look (Deny, before its veto)', 'marked'],

  // A lease run out (at -1s): no refusal for a cancel, still one for the executing gate.
  ['ending (run out)', 'cancel', 'marked'],
  ['ending (run out)', 'executing', 'ending until -1s'],
  ['ending (run out)', 'executing (Approve copy)', 'ending until -1s'],
  ['ending (run out)', 'ending', 'go'],
  ['ending (run out)', 'answered U1', 'marked'],
  ['ending (run out)', 'denied', 'marked'],
  ['ending (run out), cleared', 'executing', 'go'],
  ['ending (live), clear refused', 'executing', 'ending until 60s'],
  ['ending (live), clear refused', 'cancel', 'ending'],

  // A click's answer: a second answerer and a Deny yield to it, a cancel does not.
  ['answered U1', 'cancel', 'marked'],
  ['answered U1', 'executing', 'go'],
  ['answered U1', 'executing (Approve copy)', 'go'],
  ['answered U1', 'ending', 'go'],
  ['answered U1', 'ending (own request)', 'go'],
  ['answered U1', 'reached', 'marked'],
  ['answered U1', 'answered U1', 'marked'],
  ['answered U1', 'answered U2', 'refused'],
  ['answered U1', 'denied', 'refused'],
  ['answered U1', 'look (Deny, before its veto)', 'refused'],
  ['answered U1, unmarked', 'answered U2', 'marked'],
  ['answered U1, unmarked', 'denied', 'marked'],
  ['answered U1, unmarked by U2', 'answered U2', 'refused'],

  // A person's Deny: it stops automation (the request's own copy), not a person's approval.
  ['denied', 'cancel', 'marked'],
  ['denied', 'executing', 'denied'],
  ['denied', 'executing (Approve copy)', 'go'],
  ['denied', 'ending', 'go'],
  ['denied', 'ending (own request)', 'go'],
  ['denied', 'reached', 'marked'],
  ['denied', 'answered U1', 'marked'],
  ['denied', 'denied', 'marked'],
  ['denied', 'look (Deny, before its veto)', 'marked'],
];

describe('the marks on a held item, pair by pair', () => {
  let n = 0;
  it.each(ROWS)('%s, then %s: %s', async (first, second, told) => {
    const id = `pair-${++n}`;
    await hold(id);
    await FIRST[first]?.(id);
    expect(FIRST[first], first).toBeDefined();
    expect(WRITES[second], second).toBeDefined();
    expect(await WRITES[second]?.(id)).toBe(told);
  });
});

describe('writes on an item that is no held question', () => {
  const GONE: Array<[string, string]> = [
    ['cancel', 'not-held'],
    ['executing', 'gone'],
    ['executing (Approve copy)', 'gone'],
    ['ending', 'gone'],
    ['ending (own request)', 'gone'],
    ['reached', 'refused'],
    ['answered U1', 'refused'],
    ['denied', 'refused'],
    ['look (Deny, before its veto)', 'refused'],
  ];
  it.each(GONE)('no held item, then %s: %s', async (second, told) => {
    expect(await WRITES[second]?.(`gone-${second}`)).toBe(told);
  });

  const NOT_ASKED: Array<[string, string]> = [
    ['cancel', 'marked'],
    ['executing', 'go'],
    ['answered U1', 'refused'],
    ['denied', 'refused'],
    ['look (Deny, before its veto)', 'refused'],
  ];
  it.each(NOT_ASKED)('a wait that asks nobody, then %s: %s', async (second, told) => {
    const id = `window-${second}`;
    await hold(id, 'window');
    expect(await WRITES[second]?.(id)).toBe(told);
  });
});
