/**
 * Issue 15 item 6: one request id end to end. A chat approval goes webhook → queue → worker;
 * the id the person is told is in the webhook's line, every worker line and metric of that
 * request (as a property), its audit record and the Slack reply. The saved query's filter
 * (`requestId = "<id>"`) finds the story in both functions. An event-rule request queued by
 * the sweeper is found the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { readAudit } from '../../src/state/audit.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import {
  freshState,
  makeSweeper,
  memoryLogger,
  NOW,
  policyWith,
  type Rig,
  startRig,
} from '../sweeper/harness.js';
import { buildApp, testPolicy } from '../webhook/harness.js';
import { benchForFile } from '../worker/fixture.js';

const bench = benchForFile();

/** The saved query "one request by id", as a filter over parsed lines. */
const story = (lines: Array<Record<string, unknown>>, id: string) => lines.filter((l) => l.requestId === id);

describe('a chat request', () => {
  it('carries the id it was given through the webhook, the queue, the worker, the audit and Slack', async () => {
    const now = bench.clock.now.getTime();
    const webhook = buildApp({
      policy: testPolicy(),
      sqs: bench.emulators.sqs,
      queueUrl: bench.emulators.queueUrl,
      signer: createRequesterSigner(async () => bench.requesterKeys),
      // The worker's reply origins (the bench's Slack stand-in).
      replyOrigins: [bench.slack.origin],
      now: () => now,
    });
    const body = commandBody({
      text: 'approve trg_4 ph_1 canary is fine',
      responseUrl: `${bench.slack.origin}/response/1`,
    });
    const response = await webhook.app.request(
      signedRequest('/slack/commands', body, { timestamp: Math.floor(now / 1000) }),
    );
    const reply = (await response.json()) as { text: string };
    const id = /Request id (slack-[0-9a-f]+)/.exec(reply.text)?.[1] as string;
    expect(id).toBeDefined();

    const metricLines: Array<Record<string, unknown>> = [];
    const metrics = createMetrics({
      service: 'worker',
      sink: (l) => metricLines.push(JSON.parse(l)),
      now: () => now,
    });
    const logsBefore = bench.logs.length;
    expect(await bench.run(bench.worker({ metrics }), await bench.receive())).toEqual({
      batchItemFailures: [],
    });
    const workerLines = bench.logs.slice(logsBefore) as Array<Record<string, unknown>>;

    expect(story(webhook.requestLines(), id)).toHaveLength(1);
    expect(workerLines.length).toBeGreaterThan(0);
    expect(story(workerLines, id)).toEqual(workerLines);
    expect(metricLines.length).toBeGreaterThan(0);
    expect(story(metricLines, id)).toEqual(metricLines);
    for (const line of metricLines) {
      const directives = (line._aws as { CloudWatchMetrics: { Dimensions: string[][] }[] }).CloudWatchMetrics;
      expect(directives.flatMap((d) => d.Dimensions.flat())).not.toContain('requestId');
    }
    expect((await readAudit(bench.table, id)).map((r) => r.requestId)).toEqual([id]);
    // The worker awaits its replies: they are recorded by now.
    const replies = bench.slack.posts.filter((p) => p.path === '/response/1');
    expect(replies).toHaveLength(1);
    expect(JSON.stringify(replies[0]?.body)).toContain(id);
  });
});

describe('an event-rule request', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('is logged by the sweeper under the id the worker will use', async () => {
    const state = await freshState(rig);
    const { logger, lines } = memoryLogger();
    await makeSweeper(rig, state, { policy: policyWith(rig), logger, ruleMaxAgeMs: 365 * 86_400_000 }).run({
      now: new Date(NOW),
    });
    const queued = lines.filter((l) => l.message === 'action request queued');
    expect(queued.length).toBeGreaterThan(0);
    for (const line of queued) expect(String(line.requestId)).toMatch(/^(ev|stale):/);
  });
});
