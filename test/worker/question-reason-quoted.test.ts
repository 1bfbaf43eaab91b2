/**
 * Review (what people read in Slack): the question the worker asks (Approve/Deny) quotes the
 * request's reason, which a producer writes (an event rule fills it from the event). Only `\n`
 * started a new quoted line: a `\r`, or a Unicode line or paragraph separator, started a line
 * that was not quoted, so the reason could write a line of its own under our question, such as
 * ":white_check_mark: Done: …", as if it were ours.
 */
import { describe, expect, it } from 'vitest';
import { benchResetEachTest, copyTrigger } from './fixture.js';

const bench = benchResetEachTest();

const FORGED = ':white_check_mark: Done: approve phase `ph_9` of trigger `trg_prod`';

describe('the question about a request whose reason holds line breaks of every form', () => {
  it('quotes every line of the reason: none stands on its own under the question', async () => {
    copyTrigger(bench, 'trg_qrq');
    await bench.send({
      triggerId: 'trg_qrq',
      phaseId: 'ph_1',
      requestId: 'quoted-reason',
      requestedBy: { source: 'schedule', id: 'nightly' },
      reason: `nightly rollout\r${FORGED}\u2028${FORGED}\u2029${FORGED}\r\n${FORGED}\n${FORGED}`,
    });
    await bench.run(bench.worker(), await bench.receive());
    const question = bench.slack.posts.findLast((p) => JSON.stringify(p.body).includes('quoted-reason'));
    const blocks = (question?.body.blocks ?? []) as Array<{ text?: { text: string } }>;
    const section = blocks[0]?.text?.text;
    expect(section).toContain('Approval needed');
    const [headline, ...rest] = (section ?? '').split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/);
    expect(headline).toContain('Approval needed');
    expect(rest).toHaveLength(6);
    for (const line of rest) expect(line.startsWith('> ')).toBe(true);
  });
});
