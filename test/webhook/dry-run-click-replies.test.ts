/**
 * Review (what people read in Slack): a dry run that meets an "ask" rule posts a real question,
 * which says "Dry run (nothing will be changed)". A click replaces that question for the whole
 * channel, and the replacement dropped the words: a Deny read "… was denied by @U. Automation will
 * not do it." though a dry run's Deny vetoes only dry runs (src/policy/veto-key.ts) and the real
 * change stays free to be approved; an Approve read "… was approved by @U and queued" though
 * nothing will be changed. The channel was told of a veto and an approval that are not there.
 */
import { describe, expect, it } from 'vitest';
import { benchResetEachTest, copyTrigger } from '../worker/fixture.js';
import { clickApprove, clickDeny, questionValue } from '../worker/questions.js';

const bench = benchResetEachTest();

/** The worker asks about a dry run of approving ph_1 of a fresh copy of trg_1; the question's button value. */
async function dryRunQuestion(triggerId: string, requestId: string): Promise<string> {
  copyTrigger(bench, triggerId);
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestId,
    requestedBy: { source: 'schedule', id: 'nightly' },
    dryRun: true,
  });
  await bench.run(bench.worker(), await bench.receive());
  return questionValue(bench, requestId);
}

/** The text that replaced the question: the last reply at the click's response URL. */
function replacement(from: number): string {
  const reply = bench.slack.posts
    .slice(from)
    .filter((p) => p.path === '/actions/T0001/1/click')
    .at(-1);
  expect(reply?.body.replace_original).toBe(true);
  return JSON.stringify(reply?.body);
}

describe("a click on a dry run's question", () => {
  it('Deny: the replacement says it was a dry run, and does not claim automation will not do the change', async () => {
    const value = await dryRunQuestion('trg_drc1', 'drc-deny');
    const from = bench.slack.posts.length;
    await clickDeny(bench, value);
    const text = replacement(from);
    expect(text).toMatch(/dry run/i);
    expect(text).not.toContain('Automation will not do it');
  });

  it('Approve: the replacement says it was a dry run (nothing will be changed)', async () => {
    const value = await dryRunQuestion('trg_drc2', 'drc-approve');
    const from = bench.slack.posts.length;
    await clickApprove(bench, value);
    expect(replacement(from)).toMatch(/dry run/i);
  });
});
