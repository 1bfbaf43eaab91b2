/**
 * What happens to an asked (held) request once a person clicks Approve: the worker asks, the
 * real webhook takes the click, the worker runs the approved copy. The asked request used to
 * stay unended (a CI gate on its id timed out though the change was made), and a cancel of it
 * after the click was answered "it will not be done" while the copy went on to make the change.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { outcomeNow } from '../../src/cli/wait.js';
import { ApiTimeoutError } from '../../src/console/index.js';
import { listHeld } from '../../src/state/held.js';
import { type ReleaseDeps, releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from './fixture.js';
import { askQuestion, chatCommand, clickApprove, releaseDeps } from './questions.js';

const bench = benchResetEachTest();
let tick: ReleaseDeps;

beforeAll(() => {
  tick = releaseDeps(bench);
});

/** Approving times out after the request left: it may have reached the platform. */
const timingOutClient = () => ({
  releasePipelineTriggers: {
    approve: async () => {
      throw Object.assign(new ApiTimeoutError('no answer within 10 ms'), { attempts: 1 });
    },
  },
  experiments: { disableGroups: async () => ({}) },
  dynamicConfigs: { archive: async () => ({}) },
});

describe('an asked request answered with Approve', () => {
  it('gets an ending of its own, so `enqueue --wait` / `why` on the asked id see it approved', async () => {
    const value = await askQuestion(bench, 'trg_rv1', 'rv-asked-1');
    await clickApprove(bench, value);
    // The approved copy runs: the phase is approved once.
    await bench.run(bench.worker(), await bench.receive());
    expect(bench.approvals('trg_rv1')).toBe(1);
    // Give the system every chance to end the asked request: ticks and worker runs.
    for (const t of ['2026-11-23T10:02:00Z', '2026-11-23T11:00:30Z', '2026-11-23T12:00:30Z']) {
      await releaseHeld(tick, new Date(t));
      bench.clock.now = new Date(t);
      const event = await bench.receive();
      if (event.Records.length > 0) await bench.run(bench.worker(), event);
    }
    // The CI gate reads the asked id: the change was made, so it must exit 0, not "still held".
    const state = await outcomeNow(bench.table, 'rv-asked-1');
    expect(state, JSON.stringify(state)).toMatchObject({ exitCode: 0, result: 'approved' });
    expect(state.reason).toContain('answered by slack:U0ADMIN (request rv-asked-1:approved-by:U0ADMIN)');
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('rv-asked-1');
  });

  it('refuses a cancel once the approved copy executes', async () => {
    const value = await askQuestion(bench, 'trg_rv3', 'rv-asked-3');
    await clickApprove(bench, value);
    // The copy's worker takes the executing mark on the asked request's held item (its API call
    // then fails as if it might have reached the platform, so the mark stays for a retry).
    const worker = bench.worker({ client: timingOutClient() });
    await bench.run(worker, await bench.receive()).catch(() => undefined);
    expect(await chatCommand(bench, 'cancel rv-asked-3 too late')).toContain('can no longer be cancelled');
  });

  it('refuses a cancel while the approved copy executes, even when the hourly look holds the question again meanwhile', async () => {
    const value = await askQuestion(bench, 'trg_rv4', 'rv-asked-4');
    await clickApprove(bench, value);
    // The approved copy's API call is in flight (held open here) when the hourly look comes.
    let answer: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let calls = 0;
    const slowClient = {
      ...timingOutClient(),
      releasePipelineTriggers: {
        approve: async () => {
          calls += 1;
          await inFlight;
          return {};
        },
      },
    };
    const copy = bench.run(bench.worker({ client: slowClient }), await bench.receive());
    for (let i = 0; i < 2_000 && calls === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(calls).toBe(1);
    // The tick sends the asked request back at its hourly look; the worker asks again and holds it.
    bench.clock.now = new Date('2026-11-23T11:00:30Z');
    expect((await releaseHeld(tick, bench.clock.now)).released).toContain('rv-asked-4');
    await bench.run(bench.worker(), await bench.receive());
    // The change may be happening right now: nobody can be told it will not be done.
    expect(await chatCommand(bench, 'cancel rv-asked-4 too late')).toContain('can no longer be cancelled');
    answer();
    await copy;
  });

  it('is never executed after `/autopilot cancel` told the canceller it will not be done', async () => {
    const value = await askQuestion(bench, 'trg_rv2', 'rv-asked-2');
    await clickApprove(bench, value);
    // Before the worker picks up the approved copy, a person cancels the held question.
    expect(await chatCommand(bench, 'cancel rv-asked-2 wrong build')).toContain(
      '*cancelled*: it will not be done',
    );
    await bench.run(bench.worker(), await bench.receive());
    expect(bench.approvals('trg_rv2')).toBe(0);
    // Both end as cancelled: the approved copy, and the question it answered.
    expect(await outcomeNow(bench.table, 'rv-asked-2:approved-by:U0ADMIN')).toMatchObject({
      result: 'cancelled',
    });
    expect(await outcomeNow(bench.table, 'rv-asked-2')).toMatchObject({ result: 'cancelled' });
    expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('rv-asked-2');
  });
});
