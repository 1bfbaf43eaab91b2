/**
 * An approve the platform answers 2xx while its answer still names the approved phase the trigger's
 * current one. The spec does not say what a 2xx to an approve sent with `x-respect-review-settings`
 * means for a phase that requires a review; the sandbox's `reviews: 'wait'` answers as a platform
 * holding the phase for its reviewer would (200, the trigger unchanged). The end is still
 * "approved" (the platform accepted the call), but its reason, the audit and the Slack post say
 * the phase may wait for a review, where they said only "approved" and a release manager read the
 * pipeline as moved on.
 *
 * The worker on the emulators, the Console client sending the review header as deployed, the
 * sandbox over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { clockOf, createConsoleClient } from '../../src/console/index.js';
import { readAudit } from '../../src/state/audit.js';
import { approveAnswerNote, STILL_CURRENT_NOTE } from '../../src/worker/approve-answer.js';
import { benchForFile, copyTrigger } from './fixture.js';

const bench = benchForFile({ sandbox: { reviews: 'wait' } });

function worker(respectReviewSettings: boolean) {
  const client = createConsoleClient({
    baseUrl: bench.api.url,
    apiKey: 'sandbox-key',
    maxRetries: 0,
    mutationBudget: false,
    respectReviewSettings,
    clock: clockOf(() => bench.clock.now.getTime()),
  });
  return bench.worker({ client });
}

/** Approves `phaseId` of a fresh copy of trg_1 standing at that phase: its end's reason, its post, the trigger after. */
async function approve(tag: string, phaseId: string, respectReviewSettings: boolean) {
  const triggerId = `trg_answer_${tag}`;
  copyTrigger(bench, triggerId);
  const trigger = bench.api.sandbox.state.triggers.get(triggerId)!;
  trigger.currentPhaseID = phaseId;
  const requestId = `answer-${tag}`;
  const from = bench.slack.posts.length;
  await bench.send({ requestId, triggerId, phaseId });
  expect(await bench.run(worker(respectReviewSettings), await bench.receive())).toEqual({
    batchItemFailures: [],
  });
  const [end] = await readAudit(bench.table, requestId);
  const post = bench.slack.posts.slice(from).find((p) => JSON.stringify(p.body).includes(requestId));
  return {
    result: end?.result,
    reason: end?.reason,
    text: post?.body.text ?? '',
    currentPhaseID: trigger.currentPhaseID,
    approvals: trigger.actions.length,
  };
}

describe('an approve whose answer leaves the phase current', () => {
  it('ends approved and says the phase may wait for a review, in the audit and in Slack', async () => {
    const end = await approve('review', 'ph_1', true); // ph_1 requires review
    expect(end).toMatchObject({ result: 'approved', currentPhaseID: 'ph_1', approvals: 0 });
    // The rule's reason follows, as after every end.
    expect(end.reason).toMatch(
      /^phase ph_1 of trigger trg_answer_review approved \(the platform's answer .*\); rule /,
    );
    expect(end.reason).toContain(`approved${STILL_CURRENT_NOTE}; rule "CI in office hours"`);
    expect(end.text).toContain(
      ':white_check_mark: Done: approve phase `ph_1` of trigger `trg_answer_review`',
    );
    expect(end.text).toContain(
      "phase `ph_1` of trigger `trg_answer_review` approved (the platform's answer still names it the trigger's current phase: it may wait for a review before the pipeline moves on)",
    );
  });

  it('says nothing more when the trigger moved on: a phase without review, or no review header', async () => {
    const noReview = await approve('no-review', 'ph_2', true);
    expect(noReview).toMatchObject({ result: 'approved', currentPhaseID: 'ph_3', approvals: 1 });
    expect(noReview.reason).toMatch(/^phase ph_2 of trigger trg_answer_no-review approved; rule /);

    const bypassed = await approve('bypassed', 'ph_1', false);
    expect(bypassed).toMatchObject({ result: 'approved', currentPhaseID: 'ph_2', approvals: 1 });
    expect(bypassed.reason).toMatch(/^phase ph_1 of trigger trg_answer_bypassed approved; rule /);
  });

  it('compares the answer with the request only: any other shape says nothing, and nothing of it is quoted', () => {
    expect(approveAnswerNote({ currentPhaseID: 'ph_1' }, 'ph_1')).toBe(STILL_CURRENT_NOTE);
    for (const answer of [
      undefined,
      null,
      'ph_1',
      {},
      { currentPhaseID: null },
      { currentPhaseID: ['ph_1'] },
      { currentPhaseID: 'PH_1' },
      { currentPhaseID: 'ph_2 <!channel>' },
    ])
      expect(approveAnswerNote(answer, 'ph_1')).toBe('');
  });
});
