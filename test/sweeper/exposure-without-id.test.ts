/**
 * An exposure event (matched by name) with nothing at its `configIdFrom` path: a path that misses
 * the field some client SDK writes would record no exposure for the configs it uses, and after
 * `staleAfterDays` they would look stale. It was skipped without a word; now it is counted in the
 * run summary, logged with the path, and the stale notification warns before anyone archives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptySummary, staleNotification } from '../../src/sweeper/summary.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { NOW, type Rig, startRig, sweepLog } from './harness.js';

const MIN = 60_000;

describe('exposure events without a config id', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('are counted in the run summary and logged with the path that found nothing', async () => {
    const log: EventLike[] = [
      // An SDK that writes the id under another key: nothing at `metadata.config`.
      { timestamp: String(NOW - 12 * MIN), name: 'config_exposure', metadata: { configName: 'cfg_a' } },
      { timestamp: String(NOW - 11 * MIN), name: 'config_exposure', metadata: {} },
      { timestamp: String(NOW - 10 * MIN), name: 'config_exposure', metadata: { config: 'cfg_b' } },
    ];
    const { summary, lines } = await sweepLog(rig, log);
    expect(summary.lastSeen).toMatchObject({
      updated: 1,
      withoutConfigId: 2,
      missingAt: ['metadata.config'],
    });
    expect(
      lines.find((l) => l.message === 'exposure events without a config id: not recorded'),
    ).toMatchObject({
      level: 'warn',
      count: 2,
      paths: ['metadata.config'],
    });
  });

  it('make the stale notification warn that a config in use may look stale', () => {
    const summary = emptySummary(new Date(NOW));
    summary.stale = {
      judged: true,
      dryRun: false,
      stale: ['cfg_a'],
      queued: ['cfg_a'],
      wouldQueue: [],
      skipped: [],
    };
    summary.lastSeen = {
      updated: 0,
      tracked: 1,
      max: 0,
      evicted: 0,
      withoutConfigId: 3,
      missingAt: ['metadata.<cfg>'],
    };
    const text = staleNotification(summary);
    expect(text).toContain('3 exposure event(s) read this run had no config id at `metadata.&lt;cfg&gt;`');
    expect(text).toContain('a config in use may look stale');
    // Without any, the text says nothing of it.
    summary.lastSeen.withoutConfigId = 0;
    expect(staleNotification(summary)).not.toContain('no config id');
  });
});
