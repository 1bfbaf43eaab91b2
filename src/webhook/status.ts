/**
 * `status`: the pause switch, the queue depth, an active freeze, the policy in short and the
 * asker's grants. Reads our own state (the pause item, the queue), not the Console API; the
 * same overall deadline applies.
 */
import { activeFreeze } from '../policy/rules.js';
import { oneLine } from '../slack/mrkdwn.js';
import { grantsFor } from './authorize.js';
import { code, ephemeral, escapeMrkdwn, fields, header, section } from './blocks.js';
import { settleBy } from './deadline.js';
import type { ReadOutcome } from './read-failures.js';
import type { ReadContext } from './reads.js';

/** The queue depth gives up this long before the answer is due: a slow SQS shows as "unknown". */
const DEPTH_MARGIN_MS = 100;

/** The queue's depth by `by`, or undefined (it failed, or was late): only the pause item is essential. */
async function depthBy(ctx: ReadContext, by: number): Promise<number | undefined> {
  if (!ctx.status.queueDepth) return undefined;
  const read = await settleBy(ctx.status.queueDepth(), by, ctx.now ?? Date.now);
  return read.settled && 'value' in read ? read.value : undefined;
}

export async function status(ctx: ReadContext, signal: AbortSignal): Promise<ReadOutcome> {
  const now = (ctx.now ?? Date.now)();
  const never = new Promise<never>((_, reject) =>
    signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
  );
  never.catch(() => undefined);
  const [pause, depth] = await Promise.all([
    Promise.race([ctx.status.readPause(), never]),
    depthBy(ctx, ctx.deadline - DEPTH_MARGIN_MS),
  ]);
  const policy = ctx.policy;
  const freeze = activeFreeze(policy, now)?.name;
  // The reason a person typed, on one line with its invisible characters marked (as in the pause reply).
  const pauseText = pause.paused
    ? `:double_vertical_bar: *Paused*${pause.by ? ` by ${escapeMrkdwn(pause.by)}` : ''}${pause.since ? ` since ${pause.since}` : ''}${pause.reason ? `: ${escapeMrkdwn(oneLine(pause.reason))}` : ''}`
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
