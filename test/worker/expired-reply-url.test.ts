/**
 * Slack takes posts to a `response_url` for 30 minutes. A request that ended later (it waited for
 * a window, a resume or an answer) is not posted there, where the post could only fail and count
 * as a failed Slack post; the channel still hears the outcome. Without `reply.issuedAt` (a
 * producer that does not say when the URL was issued) the URL is tried as before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkerHandler } from '../../src/worker/worker.js';
import { benchResetEachTest } from './fixture.js';

const bench = benchResetEachTest();
let worker: WorkerHandler;

beforeAll(() => {
  worker = bench.worker();
});

const postsTo = (path: string) => bench.slack.posts.filter((p) => p.path === path);
const minutesAgo = (minutes: number) => new Date(bench.clock.now.getTime() - minutes * 60_000).toISOString();

async function approveWithReply(triggerId: string, path: string, issuedAt: string | undefined) {
  await bench.send({
    triggerId,
    phaseId: 'ph_1',
    requestId: `reply-${triggerId}`,
    reply: { slackResponseUrl: bench.slack.url(path), ...(issuedAt ? { issuedAt } : {}) },
  });
  expect(await bench.run(worker, await bench.receive())).toEqual({ batchItemFailures: [] });
  expect(bench.approvals(triggerId)).toBe(1);
}

describe("the requester's Slack reply URL", () => {
  it('is not posted to once Slack no longer takes posts there (issued 31 minutes ago); the channel is told', async () => {
    await approveWithReply('trg_1', '/actions/expired', minutesAgo(31));
    expect(postsTo('/actions/expired')).toHaveLength(0);
    expect(postsTo('/services/channel').some((p) => p.body.text?.includes('trg_1'))).toBe(true);
    expect(bench.logs.some((l) => l.message.startsWith('reply URL expired'))).toBe(true);
    expect(bench.logs.some((l) => l.message === 'reply not delivered')).toBe(false);
  });

  it('is posted to while Slack takes posts there (issued 29 minutes ago)', async () => {
    await approveWithReply('trg_2', '/actions/live', minutesAgo(29));
    expect(postsTo('/actions/live')).toHaveLength(1);
  });

  it('is posted to when the producer did not say when it was issued', async () => {
    await approveWithReply('trg_3', '/actions/unknown', undefined);
    expect(postsTo('/actions/unknown')).toHaveLength(1);
  });
});
