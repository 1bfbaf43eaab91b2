/**
 * Queues a stale plan's archive requests, then marks each on its watch entry (so a later run
 * reports it as queued earlier instead of asking again). Moved out of src/sweeper/sweeper.ts,
 * which keeps to its size bound.
 */
import type { ActionRequest } from '../actions/request.js';
import type { StateTable } from '../state/table.js';
import { type WatchEntry, writeWatchEntries } from '../state/watch.js';
import type { StalePlan } from './stale.js';
import type { SweeperStep } from './types.js';

export interface StaleQueueDeps {
  table: StateTable;
  send(requests: ActionRequest[]): Promise<void>;
  step(name: SweeperStep, detail: Record<string, unknown>): Promise<void>;
}

export async function queueStale(
  deps: StaleQueueDeps,
  plan: StalePlan,
  now: Date,
  watch: Map<string, WatchEntry>,
): Promise<void> {
  await deps.send(plan.queue);
  await deps.step('stale-enqueue', { requestIds: plan.queue.map((r) => r.requestId) });
  const marked: WatchEntry[] = [];
  for (const request of plan.queue) {
    const entry = watch.get(request.configId);
    if (!entry) continue;
    const updated = { ...entry, archiveRequestId: request.requestId, archiveQueuedAt: now.getTime() };
    watch.set(request.configId, updated);
    marked.push(updated);
  }
  if (marked.length > 0) await writeWatchEntries(deps.table, marked);
  await deps.step('stale-marks', { marked: marked.map((e) => e.configId) });
}
