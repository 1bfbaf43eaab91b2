/**
 * `autopilot policy replay` over a stuck wait the release tick ended at its expiry: the worker
 * deferred a CI request on a Saturday, the tick sent it back three times and none of the copies
 * came back (dead-lettered, say), and at `maxDeferHours` the tick denied it itself. That denial is
 * housekeeping, not a policy decision (no worker decided anything from inputs then): it was written
 * without inputs and counted "not replayable", the count that tells operators their trail is old or
 * damaged. It is counted apart, as a stuck wait's expiry. The real worker, release tick and CLI
 * over the emulators, on the bench's clock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit, writeAudit } from '../../src/state/audit.js';
import { listHeld, nextLookText } from '../../src/state/held.js';
import { releaseHeld } from '../../src/worker/release.js';
import { createWorkerEntry } from '../../src/worker/worker.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';
import { releaseDeps } from '../worker/questions.js';
import { runReplay } from './replay-run.js';

const bench = benchForFile();

const replay = (json: boolean) => runReplay(bench.table, basePolicy(bench.slack.origin), { json });

/** The deployed tick: the worker function's entry with the worker's deps (the policy: maxDeferHours 72). */
function tick(time: string) {
  bench.clock.now = new Date(time);
  const entry = createWorkerEntry({
    policy: parsePolicy(basePolicy(bench.slack.origin)),
    client: {} as never,
    sqs: bench.queue.sqs,
    table: bench.table,
    queueUrl: bench.queue.queueUrl,
    dlqUrl: bench.emulators.dlqUrl,
    logger: createLogger({ service: 'worker', sink: () => {} }),
    clock: () => bench.clock.now.getTime(),
    slack: { allowedOrigins: [bench.slack.origin] },
    signer: createRequesterSigner(async () => bench.requesterKeys),
  } as never);
  return entry({ time });
}

beforeAll(async () => {
  // Saturday 2026-11-21 10:00 (UTC policy): CI waits for Monday's office hours.
  bench.clock.now = new Date('2026-11-21T10:00:00Z');
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'deploy-stuck' });
  await bench.run(bench.worker(), await bench.receive());
  expect((await readAudit(bench.table, 'deploy-stuck')).map((r) => r.result)).toEqual(['deferred']);
  // Monday: the tick sends it back three times, and no copy comes back.
  for (const hhmm of ['09:01', '09:16', '09:31']) {
    await releaseHeld(releaseDeps(bench), new Date(`2026-11-23T${hhmm}:00Z`));
    await bench.purge();
  }
  const held = (await listHeld(bench.table)).find((h) => h.requestId === 'deploy-stuck');
  expect(nextLookText(held!)).toContain('stuck');
  // 72 hours after the request: the tick ends it.
  await tick('2026-11-24T10:00:30Z');
  const trail = await readAudit(bench.table, 'deploy-stuck');
  expect(trail.map((r) => r.result)).toEqual(['deferred', 'released', 'released', 'released', 'denied']);
  expect(trail.at(-1)).toMatchObject({ rule: 'maxDeferHours' });
}, 60_000);

describe('autopilot policy replay over a stuck wait ended at its expiry', () => {
  it('counts the expiry apart, not as a decision it could not replay', async () => {
    const report = JSON.parse(await replay(true));
    expect(report).toMatchObject({
      replayed: 1,
      unchanged: 1,
      notReplayable: 0,
      stuckExpired: 1,
      changes: {},
    });
  });

  it('says so in its summary line', async () => {
    const out = await replay(false);
    expect(out).toContain('1 unchanged, 0 changed, 0 not replayable');
    expect(out).toContain('1 stuck wait(s) the release tick ended at their expiry (not a policy decision)');
  });

  it('knows an expiry written before it was marked, by the words the tick ends it with', async () => {
    const ending = (await readAudit(bench.table, 'deploy-stuck')).find((r) => r.result === 'denied');
    if (!ending) throw new Error('no ending recorded');
    const { stuck: _kept, ...legacy } = ending as typeof ending & { stuck?: boolean };
    await writeAudit(bench.table, { ...legacy, requestId: 'deploy-stuck-legacy', at: new Date(ending.at) });
    const report = JSON.parse(await replay(true));
    expect(report).toMatchObject({ replayed: 1, notReplayable: 0, stuckExpired: 2 });
  });
});
