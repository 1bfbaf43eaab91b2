/**
 * Held waits for the release tick's tests: disable_groups requests from CI held back by a window,
 * each with its own next look, all over by the tests' moment.
 */
import type { ActionRequest } from '../../src/actions/request.js';
import { holdRequest } from '../../src/state/held.js';
import type { StateTable } from '../../src/state/table.js';

/** The request held under `requestId`. */
export function heldDisableRequest(requestId: string): ActionRequest {
  return {
    version: 1,
    action: 'disable_groups',
    experimentId: 'exp_checkout',
    groupNames: ['treatment'],
    requestedBy: { source: 'ci', id: 'release-bot' },
    requestedAt: '2026-11-23T19:00:00.000Z',
    reason: 'held back by the window',
    requestId,
  };
}

/** Holds each id as a window wait since 19:00 UTC; the i-th one's next look is `nextLookOf(i)`. */
export async function holdWindowWaits(
  table: StateTable,
  ids: readonly string[],
  nextLookOf: (index: number) => string,
  now: Date,
): Promise<void> {
  for (const [i, id] of ids.entries())
    await holdRequest(
      table,
      {
        requestId: id,
        action: 'disable_groups',
        target: 'experiment exp_checkout',
        requester: 'ci:release-bot',
        why: 'window',
        rule: 'CI in office hours',
        reason: 'outside the windows',
        since: '2026-11-23T19:00:00.000Z',
        nextLook: nextLookOf(i),
        request: heldDisableRequest(id),
      },
      now,
    );
}
