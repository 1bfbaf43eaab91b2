/**
 * The outcome's Slack posts run after the API call, near the end of the invocation, and each
 * waited up to 5 s: a slow Slack then outlived the invocation, Lambda ended it as timed out, the
 * batch came back, and the finished records were told again ("Already done", a second post). A
 * post now never waits past the invocation's last second.
 */
import { describe, expect, it } from 'vitest';
import type { HttpRequest } from '../../src/http/send.js';
import { lambdaContext } from '../helpers/lambda.js';
import { benchResetEachTest } from './fixture.js';

const bench = benchResetEachTest();

describe("the worker's Slack posts", () => {
  it('wait no longer than the invocation has left, less a second', async () => {
    const posts: HttpRequest[] = [];
    // The invocation's clock: plenty of time until the API call answers, 1.8 s left after it.
    let remaining = 60_000;
    const worker = bench.worker({
      slack: {
        allowedOrigins: [bench.slack.origin],
        send: async (request) => {
          posts.push(request);
          return { status: 200, headers: {}, text: 'ok' };
        },
      },
      client: {
        releasePipelineTriggers: {
          approve: async () => {
            remaining = 1_800;
            return {};
          },
        },
        experiments: { disableGroups: async () => ({}) },
        dynamicConfigs: { archive: async () => ({}) },
      },
    });
    await bench.send({
      triggerId: 'trg_1',
      phaseId: 'ph_1',
      requestId: 'post-1',
      reply: { slackResponseUrl: bench.slack.url('/r/1') },
    });
    const context = { ...lambdaContext({ timeoutMs: 60_000 }), getRemainingTimeInMillis: () => remaining };
    await worker(await bench.receive(), context);
    // The reply and the channel: each may wait 800 ms, the time left less a second.
    expect(posts.map((post) => post.timeoutMs)).toEqual([800, 800]);
  });

  it('keep their own 5 s limit when the invocation has time to spare', async () => {
    const posts: HttpRequest[] = [];
    const worker = bench.worker({
      slack: {
        allowedOrigins: [bench.slack.origin],
        send: async (request) => {
          posts.push(request);
          return { status: 200, headers: {}, text: 'ok' };
        },
      },
    });
    await bench.send({
      triggerId: 'trg_2',
      phaseId: 'ph_1',
      requestId: 'post-2',
      reply: { slackResponseUrl: bench.slack.url('/r/2') },
    });
    await bench.run(worker, await bench.receive(), 60_000);
    expect(posts.map((p) => p.timeoutMs)).toEqual(posts.map(() => 5_000));
  });
});
