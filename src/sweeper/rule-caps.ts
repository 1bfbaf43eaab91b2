/**
 * A cap per event rule and run, shared by what rules produce from untrusted logged events: the
 * notices (src/sweeper/notices.ts) and the action requests (src/sweeper/request-cap.ts). A rule
 * takes up to its cap each run; past it, what it matched is counted with a few examples (client-
 * written: bounded, however many a flood has), warned about once per rule, and summed up in one
 * post at the end of the run.
 */
import type { Logger } from '../observability/logger.js';
import type { RunSummary } from './summary.js';

/** How long one post may take (postToSlack's timeout): none starts closer than this to the end. */
export const POST_MS = 5_000;

/** What one rule matched past its cap in a run. */
export interface OverCap {
  rule: string;
  count: number;
  examples: string[];
}

const EXAMPLES_KEPT = 3;

/** The tallies of one cap (`what`: the warning's words for what is capped, and what becomes of the rest). */
export function perRuleCap(cap: number, what: string, logger: Logger) {
  // Each run's tallies; the run's summary stands for the run (one per run, gone with it).
  const runs = new WeakMap<RunSummary, Map<string, { taken: number; over: OverCap }>>();

  /** Whether `rule` may take one more this run; past its cap, `example` (for item `id`) is counted. */
  function take(summary: RunSummary, rule: string, id: string | undefined, example: string): boolean {
    const run = runs.get(summary) ?? new Map();
    runs.set(summary, run);
    const tally = run.get(rule) ?? { taken: 0, over: { rule, count: 0, examples: [] } };
    run.set(rule, tally);
    if (tally.taken < cap) {
      tally.taken++;
      return true;
    }
    if (tally.over.count === 0)
      logger.warn(`an event rule reached its cap of ${what}`, { rule, cap, first: id });
    tally.over.count++;
    const { examples } = tally.over;
    if (examples.length < EXAMPLES_KEPT && !examples.includes(example)) examples.push(example);
    return false;
  }

  /** The rules that matched past their cap in this run. */
  function overs(summary: RunSummary): OverCap[] {
    return [...(runs.get(summary)?.values() ?? [])].map((t) => t.over).filter((o) => o.count > 0);
  }

  return { take, overs };
}
