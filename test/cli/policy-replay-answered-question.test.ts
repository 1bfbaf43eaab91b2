/**
 * `autopilot policy replay` over a question a person answered: the worker asks, U0ADMIN clicks
 * Approve through the real webhook, the worker runs the approved copy and ends the asked request
 * with a record saying who answered. That record is a person's answer, not a policy decision: it
 * has no inputs to decide again, and used to be counted "not replayable", as if the trail were
 * damaged or old. It is counted apart, as an answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readAudit, writeAudit } from '../../src/state/audit.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';
import { askQuestion, clickApprove } from '../worker/questions.js';
import { runReplay } from './replay-run.js';

const bench = benchForFile();

const replay = (json: boolean) => runReplay(bench.table, basePolicy(bench.slack.origin), { json });

beforeAll(async () => {
  bench.clock.now = new Date('2026-11-23T10:00:00Z');
  const value = await askQuestion(bench, 'trg_q1', 'nightly-asked');
  bench.clock.now = new Date('2026-11-23T10:05:00Z');
  const copy = await clickApprove(bench, value);
  await bench.run(bench.worker(), await bench.receive());
  // The trail as the worker wrote it: the question, the approved copy, and the answer ending the question.
  const asked = await readAudit(bench.table, 'nightly-asked');
  expect(asked.map((r) => r.result)).toEqual(['asked', 'approved']);
  expect(asked[1]?.reason).toContain('answered by slack:U0ADMIN');
  expect((await readAudit(bench.table, copy)).map((r) => r.result)).toEqual(['approved']);
}, 60_000);

describe('autopilot policy replay over an answered question', () => {
  it("counts a person's answer apart, not as a decision it could not replay", async () => {
    const report = JSON.parse(await replay(true));
    expect(report).toMatchObject({ replayed: 2, unchanged: 2, notReplayable: 0, answers: 1, changes: {} });
  });

  it('says so in its summary line', async () => {
    const out = await replay(false);
    expect(out).toContain('2 unchanged, 0 changed, 0 not replayable');
    expect(out).toContain("1 person's answer(s) to a question (not a policy decision) not decided again");
  });

  it('knows an answer written before who answered was kept apart, by the words the worker began it with', async () => {
    const answer = (await readAudit(bench.table, 'nightly-asked')).find((r) => r.result === 'approved');
    if (!answer) throw new Error('no answer recorded');
    const { answeredBy: _kept, ...legacy } = answer;
    await writeAudit(bench.table, { ...legacy, requestId: 'nightly-legacy', at: new Date(answer.at) });
    const report = JSON.parse(await replay(true));
    expect(report).toMatchObject({ replayed: 2, notReplayable: 0, answers: 2 });
  });
});
