/**
 * The leases and claims of the state table (a telling claim, a notice claim, the final's telling,
 * the sweeper's run lease, an effect claim), case by case against dynalite: free, held by another
 * and live (until now included), run out, held by the taker itself, given back by another and by
 * its holder. The rows are written out here by hand, not derived from the code, so that a change
 * of a condition that changes behaviour fails here. Each row: the lease, what was done first, the
 * write (at NOW), what its caller is told, and the stored item after it (its owner and until as
 * stored, so a renamed attribute fails too).
 */
import { describe, expect, it } from 'vitest';
import { finalItemKey, recordFinal } from '../../src/state/audit.js';
import { getItem, type Item, itemKey } from '../../src/state/dynamo.js';
import { deleteItem } from '../../src/state/dynamo-delete.js';
import {
  claimEffect,
  completeEffect,
  effectItemKey,
  readEffect,
  releaseEffect,
  releaseReached,
} from '../../src/state/effects.js';
import { acquireLease, releaseLease } from '../../src/state/sweep-lease.js';
import { ITEM_FAMILIES } from '../../src/state/table.js';
import {
  claimNotice,
  claimTelling,
  finalTellingHeld,
  finalTellingUntil,
  noticeTold,
  releaseFinalTelling,
  releaseNotice,
  releaseTelling,
  tellingClaimUntil,
} from '../../src/state/telling.js';
import { emulatorsForFile } from '../helpers/emulators.js';

const { table } = emulatorsForFile();

const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const S = 1000;
/** A time as the rows write it: seconds from NOW (an until of 0 as `0`: a lock ended on purpose). */
const rel = (ms: number) => (ms === 0 ? '0' : `${(ms - NOW) / S}s`);
const outcome = (id: string) => ({ result: 'approved', reason: 'done', rule: 'r', requestId: id, at: 'x' });

/** A lease as the rows use it: take (at `nowMs`, until `untilMs`), give back, and the stored item as text. */
interface Kind {
  take(id: string, owner: string, nowMs: number, untilMs: number): Promise<string>;
  giveBack(id: string, owner: string): Promise<void>;
  stored(id: string): Promise<string>;
  /** Writes of its own beyond take and give back (a notice marked told, an effect completed, ...). */
  more?: Record<string, (id: string) => Promise<string>>;
}

const ownedUntil = (item: Item | undefined, owner = 'owner', until = 'until') =>
  item
    ? `${item[owner]?.S ?? 'nobody'} until ${item[until]?.N === undefined ? 'never' : rel(Number(item[until].N))}`
    : 'none';
const taken = (ok: boolean) => (ok ? 'taken' : 'refused');

const SWEEP_KEY = itemKey(`${ITEM_FAMILIES.sweeper}#lease`, 'run');
const tellingKey = (id: string) => itemKey(`${ITEM_FAMILIES.audit}#${id}`, 'notified#end');
const noticeKey = (id: string) => itemKey(`${ITEM_FAMILIES.audit}#${id}`, 'notified#ask');
/** The claim each final row wrote its final with (kept to give it back as written). */
const finalClaims = new Map<string, { owner: string; untilMs: number; at: Date }>();

const KINDS: Record<string, Kind> = {
  telling: {
    async take(id, owner, nowMs, untilMs) {
      if (await claimTelling(table, id, owner, nowMs, untilMs)) return 'taken';
      const until = await tellingClaimUntil(table, id);
      return `refused, held until ${until === undefined ? 'none' : rel(until)}`;
    },
    giveBack: (id, owner) => releaseTelling(table, id, owner),
    stored: async (id) => ownedUntil(await getItem(table, tellingKey(id))),
  },
  notice: {
    take: async (id, owner, nowMs, untilMs) =>
      taken(await claimNotice(table, id, 'ask', { owner, nowMs, untilMs })),
    giveBack: (id, owner) => releaseNotice(table, id, 'ask', owner),
    stored: async (id) => {
      const item = await getItem(table, noticeKey(id));
      return item && !item.owner ? 'told' : ownedUntil(item);
    },
    more: {
      'A marks told': (id) => noticeTold(table, id, 'ask', 'A', new Date(NOW)).then(() => '-'),
      'B marks told': (id) => noticeTold(table, id, 'ask', 'B', new Date(NOW)).then(() => '-'),
    },
  },
  'sweeper run': {
    take: async (_id, owner, nowMs, untilMs) => taken(await acquireLease(table, owner, nowMs, untilMs)),
    giveBack: (_id, owner) => releaseLease(table, owner),
    stored: async () => ownedUntil(await getItem(table, SWEEP_KEY)),
  },
  effect: {
    async take(id, owner, nowMs, untilMs) {
      const claim = await claimEffect(table, id, { owner, lockExpiresAt: untilMs, nowMs });
      if (claim.claimed) return claim.earlierMayHaveReached ? 'taken, an earlier may have reached' : 'taken';
      const { state } = claim;
      return state.status === 'completed'
        ? `refused, completed by ${state.outcome.requestId}`
        : `refused, held by ${state.owner} until ${rel(state.lockExpiresAt)}`;
    },
    giveBack: (id, owner) => releaseEffect(table, id, owner),
    stored: async (id) => {
      const item = await getItem(table, effectItemKey(id));
      if (item?.status?.S === 'completed') return `completed by ${item.owner?.S}`;
      return `${ownedUntil(item, 'owner', 'lockExpiresAt')}${item?.reachedAt ? ', reached' : ''}`;
    },
    more: {
      'A completes': async (id) => taken(await completeEffect(table, id, 'A', outcome('A'), new Date(NOW))),
      'B completes': async (id) => taken(await completeEffect(table, id, 'B', outcome('B'), new Date(NOW))),
      'A gives back, reached': (id) => releaseReached(table, id, 'A', new Date(NOW)).then(() => '-'),
      'B gives back, reached': (id) => releaseReached(table, id, 'B', new Date(NOW)).then(() => '-'),
      read: async (id) => {
        const state = await readEffect(table, id, NOW);
        return state.status === 'in-progress'
          ? `held by ${state.owner} until ${rel(state.lockExpiresAt)}`
          : state.status;
      },
    },
  },
  // Taken only with the final itself (put if absent): never again once a final is there.
  'final telling': {
    async take(id, owner, nowMs, untilMs) {
      const at = new Date(nowMs);
      const written = await recordFinal(table, outcome(id), at, undefined, { owner, untilMs });
      if (written) finalClaims.set(id, { owner, untilMs, at });
      return written ? 'taken' : 'refused';
    },
    async giveBack(id, owner) {
      const claim = finalClaims.get(id);
      if (!claim) throw new Error(`no final written for ${id}`);
      await releaseFinalTelling(table, outcome(id), claim.at, undefined, { owner, untilMs: claim.untilMs });
    },
    stored: async (id) => {
      const item = await getItem(table, finalItemKey(id));
      return item
        ? `final, ${item.tellOwner ? ownedUntil(item, 'tellOwner', 'tellUntil') : 'no claim'}`
        : 'none';
    },
    more: {
      read: async (id) => {
        const until = await finalTellingUntil(table, id, NOW);
        const held = await finalTellingHeld(table, id, NOW);
        return until === undefined ? `not held (${held})` : `held until ${rel(until)} (${held})`;
      },
    },
  },
};

/** What is done first (A takes at a time before NOW, so that it is taken whatever it holds until). */
const FIRST: Record<string, (kind: Kind, id: string) => Promise<unknown>> = {
  free: async () => {},
  'A holds until 60s': async (kind, id) =>
    expect(await kind.take(id, 'A', NOW - 10 * S, NOW + 60 * S)).toBe('taken'),
  'A holds until 0s': async (kind, id) => expect(await kind.take(id, 'A', NOW - 10 * S, NOW)).toBe('taken'),
  'A ran out at -1s': async (kind, id) =>
    expect(await kind.take(id, 'A', NOW - 120 * S, NOW - S)).toBe('taken'),
  'A gave back': async (kind, id) => {
    await FIRST['A holds until 60s']?.(kind, id);
    await kind.giveBack(id, 'A');
  },
  'B gave back A’s': async (kind, id) => {
    await FIRST['A holds until 60s']?.(kind, id);
    await kind.giveBack(id, 'B');
  },
  'A told': async (kind, id) => {
    await FIRST['A holds until 60s']?.(kind, id);
    await kind.more?.['A marks told']?.(id);
  },
  'A completed': async (kind, id) => {
    await FIRST['A holds until 60s']?.(kind, id);
    expect(await kind.more?.['A completes']?.(id)).toBe('taken');
  },
  'A gave back, reached': async (kind, id) => {
    await FIRST['A holds until 60s']?.(kind, id);
    await kind.more?.['A gives back, reached']?.(id);
  },
};

/** The second write, at NOW: what its caller is told ('-' for a write that tells nothing). */
function second(kind: Kind, write: string, id: string): Promise<string> {
  if (write === 'B takes until 90s') return kind.take(id, 'B', NOW, NOW + 90 * S);
  if (write === 'A takes until 90s') return kind.take(id, 'A', NOW, NOW + 90 * S);
  if (write === 'B gives back') return kind.giveBack(id, 'B').then(() => '-');
  if (write === 'A gives back') return kind.giveBack(id, 'A').then(() => '-');
  const more = kind.more?.[write];
  if (!more) throw new Error(`no write ${write}`);
  return more(id);
}

/** [lease, first, second write, what its caller is told, the stored item after] */
const ROWS: Array<[string, string, string, string, string]> = [
  // A telling claim (src/state/telling.ts claimTelling): run out strictly after its until; a refused
  // caller reads the until of the claim that holds it; its owner's own live claim refuses it too.
  ['telling', 'free', 'B takes until 90s', 'taken', 'B until 90s'],
  ['telling', 'A holds until 60s', 'B takes until 90s', 'refused, held until 60s', 'A until 60s'],
  ['telling', 'A holds until 0s', 'B takes until 90s', 'refused, held until 0s', 'A until 0s'],
  ['telling', 'A ran out at -1s', 'B takes until 90s', 'taken', 'B until 90s'],
  ['telling', 'A holds until 60s', 'A takes until 90s', 'refused, held until 60s', 'A until 60s'],
  ['telling', 'A ran out at -1s', 'A takes until 90s', 'taken', 'A until 90s'],
  ['telling', 'A gave back', 'B takes until 90s', 'taken', 'B until 90s'],
  ['telling', 'B gave back A’s', 'B takes until 90s', 'refused, held until 60s', 'A until 60s'],
  ['telling', 'A holds until 60s', 'B gives back', '-', 'A until 60s'],
  ['telling', 'A holds until 60s', 'A gives back', '-', 'none'],
  ['telling', 'A ran out at -1s', 'A gives back', '-', 'none'],
  ['telling', 'free', 'A gives back', '-', 'none'],

  // A notice claim (claimNotice): the same, and once marked told (no owner, no until) it is never
  // taken again nor given back.
  ['notice', 'free', 'B takes until 90s', 'taken', 'B until 90s'],
  ['notice', 'A holds until 60s', 'B takes until 90s', 'refused', 'A until 60s'],
  ['notice', 'A holds until 0s', 'B takes until 90s', 'refused', 'A until 0s'],
  ['notice', 'A ran out at -1s', 'B takes until 90s', 'taken', 'B until 90s'],
  ['notice', 'A holds until 60s', 'A takes until 90s', 'refused', 'A until 60s'],
  ['notice', 'A ran out at -1s', 'A takes until 90s', 'taken', 'A until 90s'],
  ['notice', 'A gave back', 'B takes until 90s', 'taken', 'B until 90s'],
  ['notice', 'B gave back A’s', 'B takes until 90s', 'refused', 'A until 60s'],
  ['notice', 'A holds until 60s', 'B gives back', '-', 'A until 60s'],
  ['notice', 'A holds until 60s', 'A gives back', '-', 'none'],
  ['notice', 'A told', 'B takes until 90s', 'refused', 'told'],
  ['notice', 'A told', 'A takes until 90s', 'refused', 'told'],
  ['notice', 'A told', 'A gives back', '-', 'told'],
  ['notice', 'A holds until 60s', 'A marks told', '-', 'told'],
  ['notice', 'A holds until 60s', 'B marks told', '-', 'A until 60s'],
  ['notice', 'A ran out at -1s', 'B marks told', '-', 'A until -1s'],
  ['notice', 'free', 'A marks told', '-', 'none'],

  // The sweeper's run lease (acquireLease): one item for every run.
  ['sweeper run', 'free', 'B takes until 90s', 'taken', 'B until 90s'],
  ['sweeper run', 'A holds until 60s', 'B takes until 90s', 'refused', 'A until 60s'],
  ['sweeper run', 'A holds until 0s', 'B takes until 90s', 'refused', 'A until 0s'],
  ['sweeper run', 'A ran out at -1s', 'B takes until 90s', 'taken', 'B until 90s'],
  ['sweeper run', 'A holds until 60s', 'A takes until 90s', 'refused', 'A until 60s'],
  ['sweeper run', 'A ran out at -1s', 'A takes until 90s', 'taken', 'A until 90s'],
  ['sweeper run', 'A gave back', 'B takes until 90s', 'taken', 'B until 90s'],
  ['sweeper run', 'B gave back A’s', 'B takes until 90s', 'refused', 'A until 60s'],
  ['sweeper run', 'A holds until 60s', 'B gives back', '-', 'A until 60s'],
  ['sweeper run', 'A holds until 60s', 'A gives back', '-', 'none'],

  // An effect claim (claimEffect): refused with its holder and until, or its outcome once completed;
  // a claim taken over (run out, or given back after a call that may have reached the platform)
  // says an earlier call may have made the change.
  ['effect', 'free', 'B takes until 90s', 'taken', 'B until 90s'],
  ['effect', 'A holds until 60s', 'B takes until 90s', 'refused, held by A until 60s', 'A until 60s'],
  ['effect', 'A holds until 0s', 'B takes until 90s', 'refused, held by A until 0s', 'A until 0s'],
  ['effect', 'A ran out at -1s', 'B takes until 90s', 'taken, an earlier may have reached', 'B until 90s'],
  ['effect', 'A holds until 60s', 'A takes until 90s', 'refused, held by A until 60s', 'A until 60s'],
  ['effect', 'A ran out at -1s', 'A takes until 90s', 'taken, an earlier may have reached', 'A until 90s'],
  ['effect', 'A gave back', 'B takes until 90s', 'taken', 'B until 90s'],
  ['effect', 'B gave back A’s', 'B takes until 90s', 'refused, held by A until 60s', 'A until 60s'],
  ['effect', 'A holds until 60s', 'B gives back', '-', 'A until 60s'],
  ['effect', 'A holds until 60s', 'A gives back', '-', 'none'],
  ['effect', 'A holds until 60s', 'read', 'held by A until 60s', 'A until 60s'],
  ['effect', 'A holds until 0s', 'read', 'held by A until 0s', 'A until 0s'],
  ['effect', 'A ran out at -1s', 'read', 'free', 'A until -1s'],
  ['effect', 'A gave back, reached', 'read', 'free', 'A until 0, reached'],
  [
    'effect',
    'A gave back, reached',
    'B takes until 90s',
    'taken, an earlier may have reached',
    'B until 90s',
  ],
  // Not even its owner deletes it afterwards: the mark that an earlier call may have reached the
  // platform stays for the next claim to learn, whichever way a later caller gives it back.
  ['effect', 'A gave back, reached', 'A gives back', '-', 'A until 0, reached'],
  ['effect', 'A holds until 60s', 'B gives back, reached', '-', 'A until 60s'],
  ['effect', 'A holds until 60s', 'A gives back, reached', '-', 'A until 0, reached'],
  ['effect', 'A completed', 'B takes until 90s', 'refused, completed by A', 'completed by A'],
  ['effect', 'A completed', 'A gives back', '-', 'completed by A'],
  ['effect', 'A completed', 'A gives back, reached', '-', 'completed by A'],
  ['effect', 'A completed', 'read', 'completed', 'completed by A'],
  ['effect', 'A completed', 'B completes', 'refused', 'completed by A'],
  ['effect', 'A completed', 'A completes', 'taken', 'completed by A'],
  // Completing is not a lease write: the change was made, whoever holds the claim now.
  ['effect', 'A holds until 60s', 'B completes', 'taken', 'completed by B'],
  ['effect', 'free', 'B completes', 'taken', 'completed by B'],

  // The telling claimed with a request's final (recordFinal): written with the final only, so never
  // taken again once a final is there; read live until its until included; given back by its owner
  // only (the final written again without it).
  ['final telling', 'free', 'B takes until 90s', 'taken', 'final, B until 90s'],
  ['final telling', 'A holds until 60s', 'B takes until 90s', 'refused', 'final, A until 60s'],
  ['final telling', 'A ran out at -1s', 'B takes until 90s', 'refused', 'final, A until -1s'],
  ['final telling', 'A holds until 60s', 'A takes until 90s', 'refused', 'final, A until 60s'],
  ['final telling', 'A gave back', 'B takes until 90s', 'refused', 'final, no claim'],
  ['final telling', 'A holds until 60s', 'read', 'held until 60s (true)', 'final, A until 60s'],
  ['final telling', 'A holds until 0s', 'read', 'held until 0s (true)', 'final, A until 0s'],
  ['final telling', 'A ran out at -1s', 'read', 'not held (false)', 'final, A until -1s'],
  ['final telling', 'A gave back', 'read', 'not held (false)', 'final, no claim'],
  ['final telling', 'free', 'read', 'not held (false)', 'none'],
  ['final telling', 'A holds until 60s', 'B gives back', '-', 'final, A until 60s'],
  ['final telling', 'A holds until 60s', 'A gives back', '-', 'final, no claim'],
  ['final telling', 'B gave back A’s', 'read', 'held until 60s (true)', 'final, A until 60s'],
];

describe('the leases of the state table, case by case', () => {
  let n = 0;
  it.each(ROWS)('%s: %s, then %s: %s (stored: %s)', async (name, first, write, told, after) => {
    const id = `lease-${++n}`;
    const kind = KINDS[name];
    expect(kind, name).toBeDefined();
    expect(FIRST[first], first).toBeDefined();
    if (!kind) return;
    await deleteItem(table, SWEEP_KEY);
    await FIRST[first]?.(kind, id);
    expect(await second(kind, write, id)).toBe(told);
    expect(await kind.stored(id)).toBe(after);
  });
});
