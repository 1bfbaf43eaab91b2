/**
 * Review (notices): the stale summary is posted "only when its text changed since the last
 * post". It was posted only when its text had never been posted (within the marks' 30 days):
 * stale [x] → stale [x, y] → stale [x] again left the channel's last word "x and y are stale"
 * (in a dry run: "would queue: x, y"), though y is in use again — people acting on the channel
 * would archive a config that is in use. Driven through the real notices and state table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulators, startEmulators } from '../../src/local/emulators.js';
import { createLogger } from '../../src/observability/logger.js';
import { noMetrics } from '../../src/observability/metrics.js';
import type { SlackMessage } from '../../src/slack/post.js';
import { createStateTable, type StateTable } from '../../src/state/table.js';
import { createNotices } from '../../src/sweeper/notices.js';
import { emptySummary, type RunSummary } from '../../src/sweeper/summary.js';

const T0 = Date.parse('2026-11-22T03:00:00.000Z');
const HOUR = 3_600_000;

function summaryAt(at: number, stale: string[]): RunSummary {
  const summary = emptySummary(new Date(at));
  summary.stale = { judged: true, dryRun: true, stale, queued: [], wouldQueue: stale, skipped: [] };
  return summary;
}

describe('the stale summary in the channel', () => {
  let emu: Emulators;
  let table: StateTable;
  beforeAll(async () => {
    emu = await startEmulators();
    table = { client: emu.dynamo, tableName: 'review-stale-summary' };
    await createStateTable(emu.dynamo, table.tableName);
  });
  afterAll(async () => {
    await emu?.stop();
  });

  it('is posted again when it goes back to a text posted before: the channel always ends on the current state', async () => {
    const posts: SlackMessage[] = [];
    const notices = createNotices({
      table,
      post: async (_url, message) => {
        posts.push(message);
        return { ok: true, status: 200 };
      },
      metrics: noMetrics,
      logger: createLogger({ service: 'review', level: 'error', sink: () => {} }),
    });
    const url = 'https://hooks.slack.com/services/T/B/x';
    const runs = [['old_banner'], ['old_banner', 'pricing_v2'], ['old_banner'], ['old_banner']];
    for (const [i, stale] of runs.entries()) {
      const at = T0 + i * HOUR;
      await notices.postStaleSummary(url, summaryAt(at, stale), new Date(at));
    }
    // Posted on the first run, on each change, and not again while nothing changed.
    expect(posts.map((p) => p.text.split('\n')[1])).toEqual([
      'would queue: `old_banner`',
      'would queue: `old_banner`, `pricing_v2`',
      'would queue: `old_banner`',
    ]);
  });
});
