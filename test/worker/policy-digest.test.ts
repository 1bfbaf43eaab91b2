/**
 * Every decision the worker records names the policy that made it (`policyDigest`, the short
 * digest of src/policy/digest.ts), and so does the held record of a request it holds: after a
 * redeploy, a held request's next look and question are still its old policy's, and `why` and
 * `policy replay` tell them apart by this. The digest is a dependency like the others: injected
 * here, taken of the policy when none is given, never read from a file on disk.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { policyDigest } from '../../src/policy/digest.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { readAudit } from '../../src/state/audit.js';
import { endHold, readHeld } from '../../src/state/held.js';
import { basePolicy, benchForFile } from './fixture.js';

const bench = benchForFile();
beforeEach(async () => {
  await bench.purge();
});

const OLD = 'a1b2c3d4e5f6';
const NEW = '0f9e8d7c6b5a';

async function decide(requestId: string, triggerId: string, at: string, digest?: string) {
  bench.clock.now = new Date(at);
  await bench.send({ triggerId, phaseId: 'ph_1', requestId, requestedAt: at });
  const worker = bench.worker(digest ? { policyDigest: digest } : {});
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
}

describe('the deciding policy on the audit trail', () => {
  it('names the policy on a decision, on the held record, and the new one on the decision after a redeploy', async () => {
    // Monday 20:00 UTC: outside office hours, so CI is deferred to 09:00 and held.
    await decide('digest-held', 'trg_1', '2026-11-23T20:00:00Z', OLD);
    const [deferred] = await readAudit(bench.table, 'digest-held');
    expect(deferred).toMatchObject({ result: 'deferred', policyDigest: OLD });
    expect((await readHeld(bench.table, 'digest-held'))?.policyDigest).toBe(OLD);

    // Redeployed with another policy: the held request, looked at again, is decided under it.
    await decide('digest-held', 'trg_1', '2026-11-24T09:05:00Z', NEW);
    const records = await readAudit(bench.table, 'digest-held');
    expect(records.map((r) => [r.result, r.policyDigest])).toEqual([
      ['deferred', OLD],
      ['approved', NEW],
    ]);
    await endHold(bench.table, 'digest-held');
  });

  it("names the policy by its own digest when the worker is given none, and not on a replay's record", async () => {
    await decide('digest-default', 'trg_2', '2026-11-23T10:00:00Z');
    const expected = policyDigest(parsePolicy(basePolicy(bench.slack.origin)));
    expect(expected).toMatch(/^[0-9a-f]{12}$/);
    // A copy of the ended request replays its end: no policy decided that.
    await decide('digest-default', 'trg_2', '2026-11-23T10:01:00Z', NEW);
    const records = await readAudit(bench.table, 'digest-default');
    expect(records.map((r) => [r.result, r.policyDigest])).toEqual([
      ['approved', expected],
      ['replayed', undefined],
    ]);
  });
});
