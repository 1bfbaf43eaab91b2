/**
 * A person's Deny never ends an asked request while a copy's approval of it is being made. The
 * worker asks about a schedule's request; a new policy approves schedules, and its hourly look (a
 * copy of the asked request) decides "approve" at 10:20, passes its executing gate and calls the
 * platform; the call is held open. U0ADMIN clicks Deny meanwhile: the veto is written, the tick
 * sends the question back, and a copy ends it as denied (its ending lease was taken although the
 * held item said another copy was executing). The held call then approved the phase, its own final
 * was refused, and the requester and the channel had been told "Denied": the Deny's author
 * believed they had stopped a change that was made. Now the ending lease is refused while a live
 * copy holds the executing mark: the Deny's pass comes back later, the approval's outcome is the
 * end, and the click is answered that it came too late.
 *
 * The real webhook, tick and worker on the emulators and the sandbox over HTTP; the call is held
 * open by the test (its client waits before sending), never by sleeping.
 */
import { expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { readFinal } from '../../src/state/audit.js';
import { readHeld } from '../../src/state/held.js';
import { DENY_ACTION_ID } from '../../src/webhook/interactions.js';
import { releaseHeld } from '../../src/worker/release.js';
import { askedCopy, newPolicy } from './deciding-copy.js';
import { type Bench, benchResetEachTest, channelPostsAbout } from './fixture.js';
import { askQuestion, clickAt, releaseDeps, repliesAt } from './questions.js';

const bench = benchResetEachTest();

/** The sandbox's client over HTTP, whose phase approvals wait until `letGo` before they are sent. */
function heldOpenClient(b: Bench) {
  const real = createConsoleClient({
    baseUrl: b.api.url,
    apiKey: 'sandbox-key',
    timeoutMs: 2_000,
    maxRetries: 1,
    maxRetryDelayMs: 100,
    mutationBudget: false,
    clock: clockOf(() => b.clock.now.getTime()),
  });
  let entered!: () => void;
  const inCall = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let letGo!: () => void;
  const gate = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const approve: typeof real.releasePipelineTriggers.approve = async (...args) => {
    entered();
    await gate;
    return real.releasePipelineTriggers.approve(...args);
  };
  const client = { ...real, releasePipelineTriggers: { ...real.releasePipelineTriggers, approve } };
  return { client, inCall, letGo };
}

it('a Deny clicked while a copy is approving the asked request neither ends it as denied nor is told as the answer', async () => {
  const id = 'dw-asked';
  const value = await askQuestion(bench, 'trg_dw1', id);
  const policy = newPolicy(bench);
  // 10:20: the hourly look approves (before the freeze) and its call is in flight.
  bench.clock.now = new Date('2026-11-23T10:20:00Z');
  await bench.send(askedCopy(id, 'trg_dw1'));
  const call = heldOpenClient(bench);
  const approving = bench.run(bench.worker({ policy, client: call.client }), await bench.receive());
  await call.inCall;

  // U0ADMIN clicks Deny; the tick sends the question back and a worker takes the copy.
  const from = bench.slack.posts.length;
  const at = bench.clock.now.getTime();
  const path = '/actions/T0001/1/deny';
  const outcome = await clickAt(bench, DENY_ACTION_ID, value, at, path);
  await releaseHeld(releaseDeps(bench), bench.clock.now);
  const denying = await bench.run(bench.worker({ policy }), await bench.receive());
  // Not ended here: it comes back once the approving copy is done.
  expect(denying.batchItemFailures).toHaveLength(1);
  expect(await readFinal(bench.table, id)).toBeUndefined();

  call.letGo();
  expect((await approving).batchItemFailures).toEqual([]);
  expect(bench.approvals('trg_dw1')).toBe(1);
  // The change made is the request's end, told once; nobody is told "Denied".
  expect(await readFinal(bench.table, id)).toMatchObject({ result: 'approved' });
  const told = channelPostsAbout(bench, id, from);
  expect(told).toHaveLength(1);
  expect(told[0]).toContain('Done');
  expect(told.join('')).not.toContain('Denied');
  expect(await readHeld(bench.table, id)).toBeUndefined();
  // The Deny's author is told it came too late, not that automation will not do it.
  expect(outcome).toBe('deny_too_late');
  const reply = repliesAt(bench, path);
  expect(reply).not.toContain('Automation will not do it');
  expect(reply).toContain('too late');
});
