/**
 * The trail of a request the tell ledger found untold (or any request named by `CHAOS_TRACE`,
 * comma-separated ids): each delivery of its message(s) to an invocation (the receive count, and
 * how that invocation crashed: before starting, mid-batch, or after which put), the worker's log
 * lines about it, its items in the state table (final, audit records, telling claims, effect) and
 * the posts to its reply URL and the channel. Printed after a failed run, so one failure can be read.
 */
import { itemsMentioning } from '../state/items-mentioning.js';
import type { StateTable } from '../state/table.js';
import type { ReceivedPost } from './slack-receiver.js';

export interface ChaosTrail {
  /** Per request id: what happened to it, in order. */
  events: Map<string, string[]>;
  started: number;
}

export function chaosTrail(): ChaosTrail {
  return { events: new Map(), started: Date.now() };
}

export function noteTrail(trail: ChaosTrail, requestId: string, what: string): void {
  const at = ((Date.now() - trail.started) / 1000).toFixed(3);
  const list = trail.events.get(requestId) ?? [];
  list.push(`${at.padStart(8)} s  ${what}`);
  trail.events.set(requestId, list);
}

/** A log sink that keeps the worker's lines about a request in its trail. */
export function trailSink(trail: ChaosTrail, invocation: () => number): (line: string) => void {
  return (line) => {
    try {
      const parsed = JSON.parse(line) as { requestId?: unknown };
      if (typeof parsed.requestId === 'string')
        noteTrail(trail, parsed.requestId, `#${invocation()} log ${line}`);
    } catch {
      // not JSON: not ours
    }
  };
}

export async function renderTrail(
  trail: ChaosTrail,
  table: StateTable,
  posts: ReceivedPost[],
  requestId: string,
  body: string | undefined,
): Promise<string> {
  const lines = [`--- trail of ${requestId}`, `  message: ${body ?? '(none)'}`];
  for (const e of trail.events.get(requestId) ?? []) lines.push(`  ${e}`);
  const items = await itemsMentioning(table, requestId);
  lines.push('  table items:');
  for (const item of items) lines.push(`    ${JSON.stringify(item)}`);
  lines.push('  posts:');
  for (const p of posts)
    if (p.path.includes(encodeURIComponent(requestId)) || JSON.stringify(p.body).includes(requestId))
      lines.push(`    ${p.at} ${p.path} ${JSON.stringify(p.body).slice(0, 300)}`);
  return lines.join('\n');
}
