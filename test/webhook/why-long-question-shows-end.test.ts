/**
 * `/autopilot why <id>` on a question nobody answered. Every hourly look at an open question
 * writes two audit steps (released, asked), so a question held for its 72 hours has ~145 steps.
 * `why` shows the steps oldest first and cut them where Slack's section ends (~2,800 characters,
 * about 12 steps): the reply showed the first hours and "(N more: npx autopilot audit)", and
 * never the latest step or how the request ended. A release manager asking `why` of a question
 * that expired read a story that stopped on its first day, waiting.
 *
 * The real worker asks (the bench policy asks a person about `schedule:` requests), the release
 * tick brings the question back at each look until its expiry, and the webhook's `why` answers.
 */
import { expect, it } from 'vitest';
import { readRequestAudit } from '../../src/state/audit.js';
import { listHeld } from '../../src/state/held.js';
import type { WebhookDeps } from '../../src/webhook/deps.js';
import { answerWhy } from '../../src/webhook/why.js';
import { releaseHeld } from '../../src/worker/release.js';
import { benchResetEachTest } from '../worker/fixture.js';
import { askQuestion, releaseDeps } from '../worker/questions.js';

const bench = benchResetEachTest();

/** What `why` shows for `requestId` at the bench's time, as one string. */
async function why(requestId: string): Promise<string> {
  const deps = {
    audit: { read: (id: string) => readRequestAudit(bench.table, id) },
  } as unknown as WebhookDeps;
  const at = bench.clock.now.getTime();
  return JSON.stringify((await answerWhy(deps, requestId, at + 3_000, () => at)).reply);
}

it('shows how a long-unanswered question ended, not only its first hours', async () => {
  await askQuestion(bench, 'trg_why_long', 'why-long');
  const tick = releaseDeps(bench);
  const worker = bench.worker();
  // Each look: the tick sends the question back 30 s after its next look, the worker takes it 5 s later.
  for (let looks = 0; looks < 100; looks++) {
    const held = (await listHeld(bench.table)).find((h) => h.requestId === 'why-long');
    if (!held?.nextLook) break;
    const tickAt = new Date(Date.parse(held.nextLook) + 30_000);
    expect((await releaseHeld(tick, tickAt)).released).toEqual(['why-long']);
    bench.clock.now = new Date(tickAt.getTime() + 5_000);
    await bench.run(worker, await bench.receive());
    if (looks === 20) {
      // Twenty-odd hours on, still open: `why` says so.
      expect(await why('why-long')).toContain('not ended yet');
    }
  }
  expect((await listHeld(bench.table)).map((h) => h.requestId)).not.toContain('why-long');
  // Expired three days on, denied by maxDeferHours: that is what `why` must show.
  expect(await why('why-long')).toContain('ended: denied (rule maxDeferHours)');
});
