/**
 * A dry run that meets an "ask" rule posts a real question. Its Deny used to write the veto under
 * the real change's effect key, so every later real request for that phase was denied by `veto`:
 * a rehearsal blocked the release. A dry run's Deny is kept apart now, and a dry run still meets
 * the real change's veto (it predicts what the real request would meet).
 */
import { describe, expect, it } from 'vitest';
import { effectKey } from '../../src/actions/request.js';
import { dryRunVetoKey } from '../../src/policy/veto-key.js';
import { readFinal } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import { readVeto, writeVeto } from '../../src/state/veto.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { clickDeny, questionValue, releaseDeps } from '../worker/questions.js';

const bench = benchResetEachTest();

const nightly = { source: 'schedule', id: 'nightly' } as const;

/** A copy of trg_1 under `triggerId`, so each test has its own phase to ask about. */
function trigger(triggerId: string) {
  const template = bench.api.sandbox.state.triggers.get('trg_1');
  bench.api.sandbox.state.triggers.set(triggerId, {
    ...structuredClone(template!),
    id: triggerId,
    actions: [],
  });
}

/** The worker runs what is on the queue. */
async function work() {
  await bench.run(bench.worker(), await bench.receive());
}

describe("a dry run's question", () => {
  it('denied by a person, ends the dry run and leaves the real change free to be decided', async () => {
    trigger('trg_dr1');
    await bench.send({
      triggerId: 'trg_dr1',
      phaseId: 'ph_1',
      requestId: 'dr-asked-1',
      requestedBy: nightly,
      dryRun: true,
    });
    await work();
    const question = bench.slack.posts.findLast((p) => JSON.stringify(p.body).includes('dr-asked-1'));
    expect(JSON.stringify(question?.body)).toContain('Dry run (nothing will be changed): Approval needed');
    await clickDeny(bench, questionValue(bench, 'dr-asked-1'));
    const real = effectKey({
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_dr1',
      phaseId: 'ph_1',
      requestedBy: nightly,
      requestedAt: bench.clock.now.toISOString(),
    });
    expect(await readVeto(bench.table, real)).toBeUndefined();
    expect(await readVeto(bench.table, dryRunVetoKey(real))).toMatchObject({ by: 'slack:U0ADMIN' });
    // The next tick ends the dry run by its veto.
    bench.clock.now = new Date('2026-11-23T10:01:30Z');
    expect((await releaseHeld(releaseDeps(bench), bench.clock.now)).released).toContain('dr-asked-1');
    await work();
    expect(await readFinal(bench.table, 'dr-asked-1')).toMatchObject({ result: 'denied', rule: 'veto' });
    // The real request for the same phase is asked about, not denied by the rehearsal's Deny.
    await bench.send({ triggerId: 'trg_dr1', phaseId: 'ph_1', requestId: 'dr-real-1', requestedBy: nightly });
    await work();
    expect(await readFinal(bench.table, 'dr-real-1')).toBeUndefined();
    expect((await listHeld(bench.table)).find((h) => h.requestId === 'dr-real-1')?.why).toBe('ask');
  });

  it("meets the real change's veto, as the real request would", async () => {
    trigger('trg_dr2');
    const real = effectKey({
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_dr2',
      phaseId: 'ph_1',
      requestedBy: nightly,
      requestedAt: bench.clock.now.toISOString(),
    });
    await writeVeto(bench.table, real, { by: 'slack:U0ADMIN', at: bench.clock.now });
    await bench.send({
      triggerId: 'trg_dr2',
      phaseId: 'ph_1',
      requestId: 'dr-asked-2',
      requestedBy: nightly,
      dryRun: true,
    });
    await work();
    expect(await readFinal(bench.table, 'dr-asked-2')).toMatchObject({ result: 'denied', rule: 'veto' });
  });
});
