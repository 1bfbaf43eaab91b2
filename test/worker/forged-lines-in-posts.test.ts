/**
 * Review (what people read in Slack): the worker's posts quote a request's ids and group names
 * in inline code. A request's group names are checked for length only (any producer's, and an
 * event rule fills them from client-logged metadata), and its ids for whitespace only: a line
 * break in a group name put a line of the producer's choosing in the channel, under ours, and a
 * backtick closed our code span so what followed was formatted as ours. A denied request made
 * the channel read "Done: approve phase … of trigger trg_prod".
 */
import { describe, expect, it } from 'vitest';
import { readFinal } from '../../src/state/audit.js';
import { benchResetEachTest, channelPostsAbout } from './fixture.js';

const bench = benchResetEachTest();

const FORGED = ':white_check_mark: Done: approve phase `ph_9` of trigger `trg_prod`';

/** Every text the post shows: the fallback and each block's text and context elements. */
function shownTexts(body: { text?: string; blocks?: unknown[] }): string[] {
  const blocks = (body.blocks ?? []) as Array<{
    text?: { text?: string };
    elements?: Array<{ text?: unknown }>;
  }>;
  return [
    body.text ?? '',
    ...blocks.map((b) => b.text?.text ?? ''),
    ...blocks.flatMap((b) => (b.elements ?? []).map((e) => (typeof e.text === 'string' ? e.text : ''))),
  ];
}

describe('the outcome of a request whose group names hold a line break or a backtick', () => {
  it('shows no line and no formatting of the producer’s choosing', async () => {
    const from = bench.slack.posts.length;
    await bench.send({
      action: 'disable_groups',
      experimentId: 'exp_forged',
      groupNames: [`control\n${FORGED}`, 'treatment` *approved by the release manager* `x'],
      requestId: 'forged-groups',
      // Not allowed to disable groups by the bench's policy: denied, and the channel is told.
      requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
    });
    expect(await bench.run(bench.worker(), await bench.receive())).toEqual({ batchItemFailures: [] });
    expect(await readFinal(bench.table, 'forged-groups')).toMatchObject({ result: 'denied' });
    const posts = bench.slack.posts
      .slice(from)
      .filter((p) => JSON.stringify(p.body).includes('forged-groups'));
    expect(posts.length).toBeGreaterThan(0);
    expect(channelPostsAbout(bench, 'forged-groups', from)).toHaveLength(1);
    for (const post of posts)
      for (const text of shownTexts(post.body)) {
        // No line of the post starts with what the producer wrote.
        for (const line of text.split('\n')) expect(line.startsWith(':white_check_mark:')).toBe(false);
        // Every code span we open is closed by us: the producer's backtick never ends one.
        expect(text).not.toContain('` *approved by the release manager* `');
      }
  });
});
