/**
 * A stale sweep's archive that went to the DLQ (its requester not proven, say after a key
 * rotation; or given up after its retries) writes no final outcome, so the sweeper, which asks
 * again only archives it knows were denied, kept it "queued earlier" for as long as the config's
 * last exposure did not change: for an unused config, for good. README promised such archives
 * "are planned again by the sweeper's next run". Now an archive asked earlier that has no end
 * once it is past `maxDeferHours` (the worker denies any request that old, so nothing of it can
 * still run) and a day more is asked again under the next id; not before, so one archive is never
 * asked twice at once. End to end: the sweeper over the sandbox's events, the worker on real SQS
 * events, the sandbox's config.
 */
import { expect, it } from 'vitest';
import { ApiTimeoutError } from '../../src/console/index.js';
import type { PolicyInput } from '../../src/policy/schema.js';
import { MAX_RECEIVE_COUNT } from '../../src/queue/redrive.js';
import { readFinal } from '../../src/state/audit.js';
import { staleRequestId } from '../../src/sweeper/stale.js';
import { basePolicy, benchForEachTest } from './fixture.js';
import { addStaleLog, benchSweeper } from './stale-archive.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const bench = benchForEachTest({ sandbox: { eventCount: 0 } });

const [a, b] = ['feature_tour', 'api_timeout_ms'];
function policyInput(): PolicyInput {
  return {
    ...basePolicy(bench.slack.origin),
    actions: { archive_config: { requesters: ['schedule:*'] } },
    sweeper: {
      staleConfigs: { configs: [a], staleAfterDays: 30, graceDays: 0, maxPerRun: 5, dryRun: false },
    },
  };
}

async function sweepAt(at: number) {
  bench.clock.now = new Date(at);
  return benchSweeper(bench, policyInput()).run({ now: new Date(at), remainingMs: 60_000 });
}

/** Plans an archive of `a` at `t0` and lets `deadLetter` send it to the DLQ; the ask's id. */
async function askedAndDeadLettered(t0: number, deadLetter: () => Promise<void>): Promise<string> {
  addStaleLog(bench, t0, [a, b]);
  expect((await sweepAt(t0)).stale.queued).toEqual([a]);
  await deadLetter();
  const asked = staleRequestId(a, t0 - 40 * DAY);
  expect(await readFinal(bench.table, asked)).toBeUndefined();
  expect(bench.api.sandbox.state.configs.get(a)?.archived).not.toBe(true);
  return asked;
}

async function expectAskedAgainAndArchived(t0: number): Promise<void> {
  // Not asked again while the first ask could still be running (held up to maxDeferHours).
  const soon = await sweepAt(t0 + 72 * HOUR);
  expect(soon.stale.queued).toEqual([]);
  expect(soon.stale.skipped).toContainEqual(
    expect.objectContaining({ configId: a, reason: 'queued earlier' }),
  );

  // Past maxDeferHours and a day: no worker can still carry the first ask out; asked again.
  const later = await sweepAt(t0 + 97 * HOUR);
  expect(later.stale.queued).toEqual([a]);
  const worker = bench.worker({ policy: policyInput() });
  for (const record of (await bench.receive()).Records) await bench.run(worker, { Records: [record] });
  expect((await readFinal(bench.table, staleRequestId(a, t0 - 40 * DAY, 1)))?.result).toBe('archived');
  expect(bench.api.sandbox.state.configs.get(a)?.archived).toBe(true);
}

it('asks again an archive dead-lettered as "requester not proven"', async () => {
  const t0 = bench.clock.now.getTime();
  await askedAndDeadLettered(t0, async () => {
    // The worker checks proofs with other keys (a rotation's old key has run out): not proven.
    const worker = bench.worker({
      policy: policyInput(),
      requesterKeys: {
        get: async () => ({ webhook: 'other-webhook-key', sweeper: 'other-sweeper-key' }),
        refresh: async () => false,
      },
    });
    const result = await bench.run(worker, await bench.receive());
    expect(result.batchItemFailures).toEqual([]);
    expect(bench.logs.some((l) => String(l.reason ?? l.error ?? '').includes('requester not proven'))).toBe(
      true,
    );
  });
  await expectAskedAgainAndArchived(t0);
});

it('asks again an archive given up after its retries', async () => {
  const t0 = bench.clock.now.getTime();
  await askedAndDeadLettered(t0, async () => {
    const failing = bench.worker({
      policy: policyInput(),
      client: {
        releasePipelineTriggers: { approve: async () => ({}) },
        experiments: { disableGroups: async () => ({}) },
        dynamicConfigs: {
          archive: async () => {
            // Refused before it left: nothing reached the platform.
            throw Object.assign(new ApiTimeoutError('connect timeout', false), { attempts: 1 });
          },
        },
      },
    });
    const event = await bench.receive();
    const last = {
      Records: event.Records.map((r) => ({
        ...r,
        attributes: { ...r.attributes, ApproximateReceiveCount: String(MAX_RECEIVE_COUNT) },
      })),
    };
    const result = await bench.run(failing, last);
    expect(result.batchItemFailures).toHaveLength(1);
    expect(bench.logs.some((l) => l.result === 'dead-lettered')).toBe(true);
    await bench.purge(); // SQS moves it to the DLQ
  });
  await expectAskedAgainAndArchived(t0);
});
