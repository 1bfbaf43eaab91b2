/**
 * The chaos run's tell ledger: what people were told, checked against how each request ended. The
 * local stack's Slack receiver keeps every post to a requester's response URL (`/response/<id>`)
 * and to the notifications channel (`/channel`); each is read back as the request it is about and
 * the end its headline tells (src/worker/replies.ts). A pure function of those posts and of the
 * state (finals, audit trails) and the run's deliveries, so that it is unit-tested on its own.
 */

/** An end a post tells (or `deferred`/`asked`, which are not ends), read from its headline. */
export type ToldEnd =
  | 'done'
  | 'would-mutate'
  | 'denied'
  | 'stale'
  | 'rejected'
  | 'cancelled'
  | 'given-up'
  | 'deferred'
  | 'asked'
  | 'unknown';

const NOT_ENDS: ReadonlySet<ToldEnd> = new Set<ToldEnd>(['deferred', 'asked', 'unknown']);

/** A final's result as the end people are told (`approved` … `archived` read "Done"). */
export function endOfResult(result: string): ToldEnd {
  if (result === 'approved' || result === 'groups-disabled' || result === 'archived') return 'done';
  if (['would-mutate', 'denied', 'stale', 'rejected', 'cancelled'].includes(result)) return result as ToldEnd;
  if (result === 'dead-lettered') return 'given-up';
  return 'unknown';
}

const HEADLINES: Array<[RegExp, ToldEnd]> = [
  [/^:white_check_mark: (Done|Already done):/, 'done'],
  [/^:test_tube: /, 'would-mutate'],
  [/^:no_entry: /, 'denied'],
  // A denial of a change an earlier attempt may have made (replies.ts `mayHaveBeenDone`).
  [/^:warning: (\[dry run\] )?No longer tried/, 'denied'],
  [/^:warning: Stale:/, 'stale'],
  // A refusal of a retry whose earlier attempt got no answer (src/worker/execute.ts) reads ':warning:'.
  [/^(:x:|:warning:) The Console API refused/, 'rejected'],
  [/^:wastebasket: Cancelled/, 'cancelled'],
  [/^:rotating_light: /, 'given-up'],
  [/^:hourglass_flowing_sand: /, 'deferred'],
  [/^(:raising_hand: |(Dry run \(nothing will be changed\): )?Approval needed)/, 'asked'],
];

/** A post as the receiver kept it. */
export interface RawPost {
  seq: number;
  path: string;
  body: unknown;
}

export interface TellPost {
  seq: number;
  to: 'requester' | 'channel';
  requestId?: string;
  end: ToldEnd;
  /** The plain-text fallback (what a notification shows), cut for the report. */
  text: string;
}

/** The request a post is about: its response URL's path, else the last "request `id`" it shows. */
function requestIdOf(post: RawPost, to: TellPost['to']): string | undefined {
  if (to === 'requester') {
    const raw = post.path.slice('/response/'.length);
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  const blocks = (post.body as { blocks?: unknown } | null)?.blocks;
  const matches = [...JSON.stringify(blocks ?? '').matchAll(/request `([^`]+)`/g)];
  return matches.at(-1)?.[1];
}

/** Reads one post; undefined for a post to neither a requester nor the channel. */
export function readPost(post: RawPost): TellPost | undefined {
  const to = post.path.startsWith('/response/')
    ? 'requester'
    : post.path === '/channel'
      ? 'channel'
      : undefined;
  if (!to) return undefined;
  const text = String((post.body as { text?: unknown } | null)?.text ?? '');
  const end = HEADLINES.find(([pattern]) => pattern.test(text))?.[1] ?? 'unknown';
  const requestId = requestIdOf(post, to);
  return { seq: post.seq, to, ...(requestId ? { requestId } : {}), end, text: text.slice(0, 160) };
}

/** What the run knows besides the posts. */
export interface TellFacts {
  /** Each ended request's final result (the state table's final item). */
  finals: ReadonlyMap<string, string>;
  /** Requests sent with a reply URL. */
  withReplyUrl: ReadonlySet<string>;
  /**
   * Requests whose own end is in their audit trail (not a replay of another request's): that record
   * is written after the posts to the channel, so the channel was owed it (when one is set).
   */
  channelOwed: ReadonlySet<string>;
  /** Messages of each request handed to a worker invocation (duplicates sent, redeliveries). */
  deliveries: ReadonlyMap<string, number>;
  /** Requests in an invocation that crashed (injected): they may be told twice rather than never. */
  crashed: ReadonlySet<string>;
  /**
   * Requests whose message ended in the DLQ (its last receive crashed, say): an untold end there is
   * told when an operator redrives the message (the DLQ alarm pages them), so it is counted apart.
   */
  inDlq?: ReadonlySet<string>;
}

export interface Contradiction {
  requestId: string;
  ends: ToldEnd[];
  final?: string;
  posts: string[];
}

export interface Repeat {
  requestId: string;
  to: TellPost['to'];
  end: ToldEnd;
  count: number;
  /** Allowed: the request was in a crashed invocation (channel, requester) or delivered more than once (requester). */
  explained: boolean;
}

export interface Mismatch {
  requestId: string;
  to: TellPost['to'];
  final: string;
  told: ToldEnd;
}

export interface TellLedger {
  posts: { requester: number; channel: number; ends: number; notEnds: number };
  /** End posts whose request could not be read, and posts whose headline is not one we know. */
  unattributed: number;
  unknown: string[];
  ended: number;
  /** Of the ended: with a reply URL, owed to the channel, in an invocation that crashed. */
  owed: { requester: number; channel: number; crashed: number };
  untoldRequester: string[];
  untoldChannel: string[];
  /** Ended requests untold whose message is in the DLQ: told on the operator's redrive, not a failure. */
  untoldInDlq: string[];
  contradictions: Contradiction[];
  mismatches: Mismatch[];
  repeats: Repeat[];
}

type PerRequest = Map<string, TellPost[]>;

function byRequest(posts: TellPost[]): PerRequest {
  const out: PerRequest = new Map();
  for (const post of posts) {
    if (!post.requestId || NOT_ENDS.has(post.end)) continue;
    const list = out.get(post.requestId) ?? [];
    list.push(post);
    out.set(post.requestId, list);
  }
  return out;
}

function repeatsOf(requestId: string, posts: TellPost[], facts: TellFacts): Repeat[] {
  const counts = new Map<string, number>();
  for (const post of posts)
    counts.set(`${post.to}|${post.end}`, (counts.get(`${post.to}|${post.end}`) ?? 0) + 1);
  const out: Repeat[] = [];
  for (const [key, count] of counts) {
    if (count < 2) continue;
    const [to, end] = key.split('|') as [TellPost['to'], ToldEnd];
    // A copy that finds the end told replays it to its requester (replay-end.ts), never to the
    // channel: the channel hears an end twice only when its teller died before recording it.
    const crashed = facts.crashed.has(requestId);
    const redelivered = (facts.deliveries.get(requestId) ?? 0) > 1;
    out.push({ requestId, to, end, count, explained: crashed || (to === 'requester' && redelivered) });
  }
  return out;
}

/** (1) Every ended request told: to its requester when it had a reply URL, to the channel when owed. */
function checkTold(ledger: TellLedger, perRequest: PerRequest, facts: TellFacts, channelSet: boolean): void {
  for (const requestId of facts.finals.keys()) {
    const told = perRequest.get(requestId) ?? [];
    const owesRequester = facts.withReplyUrl.has(requestId);
    const owesChannel = channelSet && facts.channelOwed.has(requestId);
    if (owesRequester) ledger.owed.requester += 1;
    if (owesChannel) ledger.owed.channel += 1;
    if (facts.crashed.has(requestId)) ledger.owed.crashed += 1;
    const untoldRequester = owesRequester && !told.some((p) => p.to === 'requester');
    const untoldChannel = owesChannel && !told.some((p) => p.to === 'channel');
    if ((untoldRequester || untoldChannel) && facts.inDlq?.has(requestId)) {
      ledger.untoldInDlq.push(requestId);
      continue;
    }
    if (untoldRequester) ledger.untoldRequester.push(requestId);
    if (untoldChannel) ledger.untoldChannel.push(requestId);
  }
}

/** (2) one end per request, (3) repeats counted, (4) the end told is the final recorded. */
function checkEnds(ledger: TellLedger, requestId: string, told: TellPost[], facts: TellFacts): void {
  const distinct = [...new Set(told.map((p) => p.end))];
  const final = facts.finals.get(requestId);
  if (distinct.length > 1)
    ledger.contradictions.push({
      requestId,
      ends: distinct,
      ...(final ? { final } : {}),
      posts: told.map((p) => `${p.to}: ${p.text}`),
    });
  if (final !== undefined) {
    for (const to of ['requester', 'channel'] as const) {
      const wrong = told.find((p) => p.to === to && p.end !== endOfResult(final));
      if (wrong) ledger.mismatches.push({ requestId, to, final, told: wrong.end });
    }
  }
  ledger.repeats.push(...repeatsOf(requestId, told, facts));
}

/** The ledger: every post read, then each ended request's tellings checked against its final. */
export function tellLedger(raw: RawPost[], facts: TellFacts, channelSet: boolean): TellLedger {
  const posts = raw.flatMap((p) => readPost(p) ?? []);
  const ends = posts.filter((p) => !NOT_ENDS.has(p.end));
  const perRequest = byRequest(posts);
  const ledger: TellLedger = {
    posts: {
      requester: posts.filter((p) => p.to === 'requester').length,
      channel: posts.filter((p) => p.to === 'channel').length,
      ends: ends.length,
      notEnds: posts.length - ends.length,
    },
    unattributed: ends.filter((p) => !p.requestId).length,
    unknown: posts.filter((p) => p.end === 'unknown').map((p) => p.text),
    ended: facts.finals.size,
    owed: { requester: 0, channel: 0, crashed: 0 },
    untoldRequester: [],
    untoldChannel: [],
    untoldInDlq: [],
    contradictions: [],
    mismatches: [],
    repeats: [],
  };
  checkTold(ledger, perRequest, facts, channelSet);
  for (const [requestId, told] of perRequest) checkEnds(ledger, requestId, told, facts);
  return ledger;
}

/** Why the ledger fails the run; empty when what people were told is right. */
export function tellFailures(ledger: TellLedger): string[] {
  const failures: string[] = [];
  const count = (n: number, what: string) => n > 0 && failures.push(`${n} ${what}`);
  count(ledger.untoldRequester.length, 'ended request(s) never told to their requester');
  count(ledger.untoldChannel.length, 'ended request(s) never told to the channel');
  count(ledger.contradictions.length, 'request(s) told two different ends');
  count(ledger.mismatches.length, 'telling(s) of an end other than the recorded final');
  count(ledger.repeats.filter((r) => !r.explained).length, 'end(s) told twice with no crash or redelivery');
  return failures;
}
