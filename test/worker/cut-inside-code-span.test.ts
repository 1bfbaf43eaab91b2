/**
 * Review (Slack text): a post past Slack's section limit is cut (`cutMrkdwn`). The cut fell where
 * the length ran out, also inside a code span: an outcome for many long group names ended in an
 * opening backtick with no closing one, so Slack showed the backtick and the group names' text
 * unformatted (or formatted the rest as code). A cut inside a span now closes it.
 */
import { expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { basePolicy, benchResetEachTest } from './fixture.js';

const bench = benchResetEachTest();

/** Every mrkdwn text of a message's blocks. */
function blockTexts(body: { blocks?: unknown }): string[] {
  const texts: string[] = [];
  JSON.parse(JSON.stringify(body.blocks ?? []), (key, value) => {
    if (key === 'text' && typeof value === 'string') texts.push(value);
    return value;
  });
  return texts;
}

/** Lines with an odd number of backticks: a code span opened and never closed. */
const unclosedSpans = (text: string) =>
  text.split('\n').filter((line) => (line.match(/`/g) ?? []).length % 2 === 1);

it('tells the end of a disable_groups request with many long group names, every code span closed', async () => {
  const from = bench.slack.posts.length;
  const worker = bench.worker({
    policy: basePolicy(bench.slack.origin),
    client: {
      releasePipelineTriggers: { approve: async () => ({}) },
      experiments: { disableGroups: async () => ({}) },
      dynamicConfigs: { archive: async () => ({}) },
    },
  });
  // 30 groups of 150 characters, each in its own span: the section's cut falls inside one.
  const groupNames = Array.from({ length: 30 }, (_, i) => `group_${i}_${'x'.repeat(140)}`);
  await bench.send({
    action: 'disable_groups',
    experimentId: 'exp_span_cut',
    groupNames,
    requestId: 'span-cut-done',
    requestedBy: { source: 'slack', id: 'U0ADMIN' },
    reply: {
      slackResponseUrl: bench.slack.url('/actions/T0001/1/spans'),
      issuedAt: bench.clock.now.toISOString(),
    },
  });
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  expect(await readFinal(bench.table, 'span-cut-done')).toMatchObject({ result: 'groups-disabled' });
  const told = bench.slack.posts.slice(from).filter((p) => JSON.stringify(p.body).includes('span-cut-done'));
  expect(told.map((p) => p.path)).toContain('/actions/T0001/1/spans');
  for (const post of told) {
    const texts = blockTexts(post.body as { blocks?: unknown });
    // It was cut: the last group is not shown whole.
    expect(texts.some((t) => t.includes('…'))).toBe(true);
    for (const text of texts) expect(unclosedSpans(text)).toEqual([]);
  }
});
