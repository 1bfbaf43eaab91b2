/**
 * `status`: the pause switch, the queue depth, how many requests are held and why, an active
 * freeze, the policy in short and the asker's grants. Reads our own state (the pause item, the
 * queue, the held partition), not the Console API; the same overall deadline applies.
 */
import { activeFreeze } from '../policy/rules.js';
import { formatInstant } from '../policy/time-words.js';
import { oneLine } from '../slack/mrkdwn.js';
import type { HeldCount, HeldKind } from '../state/held-count.js';
import { grantsFor } from './authorize.js';
import { code, ephemeral, escapeMrkdwn, fields, header, section } from './blocks.js';
import { settleBy } from './deadline.js';
import type { ReadOutcome } from './read-failures.js';
import type { ReadContext } from './reads.js';

/** The queue depth and the held count give up this long before the answer is due: "unknown". */
const DEPTH_MARGIN_MS = 100;

/** An optional read's value by `by`, or undefined (none, it failed, or was late): only the pause item is essential. */
async function valueBy<T>(ctx: ReadContext, read: (() => Promise<T>) | undefined, by: number) {
  if (!read) return undefined;
  const settled = await settleBy(read(), by, ctx.now ?? Date.now);
  return settled.settled && 'value' in settled ? settled.value : undefined;
}

/** What held requests wait for, in broad terms (the order `held`'s reader meets them in). */
const KIND_WORDS: ReadonlyArray<[HeldKind, string]> = [
  ['resume', 'for resume'],
  ['window', 'for a window'],
  ['limit', 'over a limit'],
  ['answer', 'for an answer in the channel'],
  ['approved', 'approved, on the way'],
  ['cancelled', 'cancelled, ending'],
  ['stuck', 'stuck (see the DLQ)'],
];

/**
 * "6 held: 3 for resume, …": someone about to `resume` sees what waits for it (the queue depth
 * counts none of it). While paused the tick sends nothing back, whatever each waits for.
 */
function heldText(held: HeldCount | undefined, paused: boolean, slash: string): string {
  if (!held) return 'unknown (the state table did not answer in time)';
  if (held.count === 0 && !held.more) return 'none';
  const kinds = KIND_WORDS.flatMap(([kind, words]) => {
    const n = held.kinds[kind];
    return n ? [`${n} ${words}`] : [];
  });
  // Past the cap only the counted ones are told apart: "50+ held; of the 50 counted: …".
  const total = held.more ? `${held.count}+ held; of the ${held.count} counted` : `${held.count} held`;
  const list = `${code(`${slash} held`)} lists them`;
  const others = Object.keys(held.kinds).some((kind) => kind !== 'resume');
  const pause = paused && others ? '; while paused none of them goes ahead before `resume`' : '';
  return `${total}: ${kinds.join(', ')}${pause} · ${list}`;
}

/**
 * When the pause began, as the worker's replies about it say it ("since Fri 27 Nov 15:14 CET": the
 * policy's decision, src/policy/decide.ts), in the policy's time zone, with the year when it is not
 * this one. A stored time that cannot be read is shown as it is, escaped and on one line.
 */
function sinceText(since: string, zone: string, now: number): string {
  const at = Date.parse(since);
  return Number.isFinite(at) ? formatInstant(at, zone, now) : escapeMrkdwn(oneLine(since));
}

export async function status(ctx: ReadContext, signal: AbortSignal): Promise<ReadOutcome> {
  const now = (ctx.now ?? Date.now)();
  const never = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
  never.catch(() => undefined);
  const by = ctx.deadline - DEPTH_MARGIN_MS;
  const [pause, depth, held] = await Promise.all([
    Promise.race([ctx.status.readPause(), never]),
    valueBy(ctx, ctx.status.queueDepth, by),
    valueBy(ctx, ctx.status.heldCount, by),
  ]);
  const policy = ctx.policy;
  const freeze = activeFreeze(policy, now)?.name;
  // The reason a person typed, on one line with its invisible characters marked (as in the pause reply).
  const pauseText = pause.paused
    ? `:double_vertical_bar: *Paused*${pause.by ? ` by ${escapeMrkdwn(pause.by)}` : ''}${pause.since ? ` since ${sinceText(pause.since, policy.timezone, now)}` : ''}${pause.reason ? `: ${escapeMrkdwn(oneLine(pause.reason))}` : ''}`
    : ':arrow_forward: *Running* (not paused)';
  const stale = policy.sweeper.staleConfigs;
  const mine = grantsFor(policy, ctx.userId);
  return {
    outcome: 'ok',
    reply: ephemeral(pause.paused ? 'console-autopilot is paused' : 'console-autopilot is running', [
      header('console-autopilot status'),
      section(pauseText),
      ...fields([
        ['Queued actions', depth === undefined ? 'unknown' : String(depth)],
        // Shown only where the webhook reads the held partition (always, when deployed).
        ...(ctx.status.heldCount
          ? [['Held requests', heldText(held, pause.paused, ctx.slash)] as [string, string]]
          : []),
        ['Freeze', freeze ? `:snowflake: ${escapeMrkdwn(freeze)} (active)` : 'none active'],
        ['Approval rules', String(policy.approvals.rules.length)],
        ['Time zone', escapeMrkdwn(policy.timezone)],
        [
          'Stale-config sweep',
          stale
            ? `${stale.dryRun ? 'dry run' : 'archives'} after ${stale.staleAfterDays} days, ≤ ${stale.maxPerRun} a run`
            : 'off',
        ],
        ['Your grants', mine.length > 0 ? mine.map((g) => code(g)).join(' ') : 'none (reads only)'],
      ]),
    ]),
  };
}
