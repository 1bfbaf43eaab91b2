/**
 * Since when the stale sweep has not judged. It judges only when both walks of the event log have
 * read far enough (src/sweeper/sweeper.ts); a late-exposure walk that falls behind for good (the
 * sweeper's own walk needing most of each run) keeps it off with every run merely `partial`, while
 * SweeperLag reads 0. So a small item in the cursor's partition remembers the last run that judged
 * (or, before any did, the first that could not), and each run reports the age (StaleJudgementAge).
 */
import { getItem, itemKey, putItem } from './dynamo.js';
import { type Cursor, recordingEpisode } from './sweep-cursor.js';
import { ITEM_FAMILIES, type StateTable } from './table.js';

const KEY = itemKey(`${ITEM_FAMILIES.sweeper}#cursor`, 'stale-judged');

/**
 * Records this run's judgement (or its absence) and returns since when (epoch ms) the stale sweep
 * has not judged: null when this run judged. The count is kept per recording episode (the
 * exposure settings and when recording started, from the sweeper's cursor): a sweep turned off
 * and on again, or given other exposure events, counts from its first run again, not from a
 * judgement months old.
 */
export async function notJudgedSince(
  table: StateTable,
  run: { judged: boolean; now: Date; cursor: Cursor },
): Promise<number | null> {
  const { judged, now, cursor } = run;
  const episode = recordingEpisode(cursor);
  if (!judged) {
    const item = await getItem(table, KEY);
    const at = Number(item?.at?.N);
    // A time ahead of the run's (a run at 2030 judged, before the handler refused such times)
    // would read as "not judged for 0 s" until then: StaleSweepNotJudging never fired.
    if (item?.episode?.S === episode && Number.isFinite(at) && at <= now.getTime()) return at;
  }
  await putItem(table, {
    ...KEY,
    at: { N: String(now.getTime()) },
    episode: { S: episode },
    updatedAt: { S: now.toISOString() },
  });
  return judged ? null : now.getTime();
}
