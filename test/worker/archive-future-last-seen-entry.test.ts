/**
 * Before c552182 the sweeper recorded an exposure at its stamp: a device clock ten years ahead
 * left a config's last-seen entry ten years ahead in the table. The sweeper now reads such an entry
 * as no later than the run that wrote it, and judges the config stale once unused for
 * `staleAfterDays`; the worker's re-check before the archive reads the same entry and must agree,
 * or it denies the archive as "exposed at 2036", run after run, for as long as the stamp is ahead.
 */
import { describe, expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { batchPut } from '../../src/state/dynamo-batch.js';
import { benchForFile } from './fixture.js';
import { addStaleLog, benchSweeper, oneArchiveADayPolicy } from './stale-archive.js';

const DAY = 86_400_000;

const bench = benchForFile({ sandbox: { eventCount: 0 } });

describe('a stale config whose last-seen entry an older version stored years ahead', () => {
  it('is archived by the worker, the sweep and its re-check agreeing on its last exposure', async () => {
    const t0 = bench.clock.now.getTime(); // 2026-11-23T10:00:00Z
    const policyInput = {
      ...oneArchiveADayPolicy(bench),
      actions: { archive_config: { requesters: ['schedule:*'] } },
    };
    addStaleLog(bench, t0, ['feature_tour', 'api_timeout_ms']);
    // feature_tour's last use, 40 days ago, came from a device ten years ahead: an older version
    // recorded it at that stamp, in the run of 40 days ago.
    await batchPut(bench.table, [
      {
        pk: { S: 'lastseen' },
        sk: { S: 'feature_tour' },
        lastSeen: { N: String(t0 - 40 * DAY + 3650 * DAY) },
        updatedAt: { S: new Date(t0 - 40 * DAY).toISOString() },
      },
    ]);
    const sweeper = benchSweeper(bench, policyInput);
    const worker = bench.worker({ policy: policyInput });

    const run = await sweeper.run({ now: new Date(t0), remainingMs: 60_000 });
    const requests = (await bench.receive()).Records;
    for (const record of requests) await bench.run(worker, { Records: [record] });

    const ids = requests.map((r) => JSON.parse(r.body).requestId as string);
    const finals = await Promise.all(ids.map((id) => readFinal(bench.table, id)));
    expect({
      queued: run.stale.queued.sort(),
      results: finals.map((f) => `${f?.result}: ${f?.reason ?? ''}`.slice(0, 60)),
      archived: ['feature_tour', 'api_timeout_ms'].map(
        (c) => bench.api.sandbox.state.configs.get(c)?.archived,
      ),
    }).toMatchObject({
      queued: ['api_timeout_ms', 'feature_tour'],
      archived: [true, true],
    });
  });
});
