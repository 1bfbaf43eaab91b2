/**
 * A logged event is untrusted input: an SDK (or anyone with a client key) may write the config
 * id field as an object or a list (`{"name": "x"}`). Such a value is no config id. It was
 * recorded as its JSON text, which made a bogus config on the watch set and the last-seen
 * index (and, with the sweep on, an archive request for `{"name":"x"}`). Now only a string (or
 * a number, as written) is a config id; anything else is counted like a missing id, with its
 * shape in the log line, so the operator points `configIdFrom` at the string inside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLike } from '../../src/sweeper/types.js';
import { NOW, type Rig, startRig, stateOf, sweepLog } from './harness.js';

const MIN = 60_000;

describe('an exposure whose config id field is not a string', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ eventCount: 10 });
  });
  afterAll(async () => {
    await rig.close();
  });

  it('is counted, not recorded as its JSON text', async () => {
    const exposure = (minutesAgo: number, config: unknown): EventLike =>
      ({
        timestamp: String(NOW - minutesAgo * MIN),
        name: 'config_exposure',
        metadata: { config },
      }) as EventLike;
    const log = [
      exposure(14, { name: 'cfg_object' }),
      exposure(13, ['cfg_list']),
      exposure(12, true),
      exposure(11, 'cfg_string'),
      exposure(10, 42),
    ];
    const { summary, lines, table } = await sweepLog(rig, log);

    const { lastSeen, watch } = await stateOf(table);
    expect([...lastSeen.keys()].sort()).toEqual(['42', 'cfg_string']);
    expect([...watch.keys()].sort()).toEqual(['42', 'cfg_string']);
    expect(summary.lastSeen).toMatchObject({
      updated: 2,
      withoutConfigId: 3,
      missingAt: ['metadata.config'],
    });
    expect(
      lines.find((l) => l.message === 'exposure events without a config id: not recorded'),
    ).toMatchObject({ count: 3, paths: ['metadata.config'], found: ['object', 'list', 'boolean'] });
  });
});
