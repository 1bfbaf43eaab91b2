/**
 * Slack posts are how outcomes reach people: replies to a request's `response_url`, the
 * notifications channel, the questions with their buttons. A revoked incoming-webhook URL (or a
 * channel archived) makes every one fail, and `SlackPostsFailed` was on the dashboard only: no
 * alarm, so nobody heard that nobody heard. Now an alarm reads it over the three functions: not
 * on one transient failure, but when they go on. And the reply to an answered question's
 * requester that fails was counted without a log line: it now has one, with the request id and
 * never the URL (a capability to post into someone's conversation).
 * The worker on the emulators, the sandbox and a Slack stand-in that refuses posts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics, METRICS_NAMESPACE } from '../../src/observability/metrics.js';
import { APPROVE_ACTION_ID } from '../../src/webhook/interactions.js';
import { alarmReading, emittedMetrics, expectReadsEmitted, simulate } from '../infra/alarm-reading.js';
import { type Synthesized, synthesize } from '../infra/synth.js';
import { benchResetEachTest, copyTrigger } from './fixture.js';
import { clickApprove } from './questions.js';

let s: Synthesized;
const bench = benchResetEachTest(); // each test at 10:00 on a Monday, in office hours
const lines: string[] = [];
const metrics = createMetrics({ service: 'worker', sink: (line) => lines.push(line) });

beforeAll(async () => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(async () => {
  s?.cleanup();
});
beforeEach(() => {
  bench.slack.setStatus(200);
  lines.length = 0;
});

describe('Slack posts that fail', () => {
  it('are counted under the metric exactly one paging alarm reads, for each function that posts', async () => {
    // The channel's incoming webhook was revoked: Slack answers 404 no_service.
    bench.slack.setStatus(404);
    copyTrigger(bench, 'trg_spf1');
    await bench.send({ triggerId: 'trg_spf1', phaseId: 'ph_1', requestId: 'spf-approved' });
    await bench.run(bench.worker({ metrics }), await bench.receive());
    expect(bench.approvals('trg_spf1')).toBe(1);

    const alarm = alarmReading(s, 'SlackPostsFailed');
    const failed = emittedMetrics(lines).filter((m) => m.name === 'SlackPostsFailed');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    for (const metric of failed) expectReadsEmitted(alarm, metric);
    // The webhook (a click's reply) and the sweeper (channel notices) count theirs the same way.
    for (const service of ['webhook', 'sweeper'])
      expectReadsEmitted(alarm, {
        ...failed[0]!,
        namespace: METRICS_NAMESPACE,
        dimensions: { Service: service },
      });
    expect(alarm.props.AlarmActions).toHaveLength(1);
    expect(alarm.props.OKActions).toEqual(alarm.props.AlarmActions);
    expect(alarm.props.AlarmDescription).toContain('slackWebhookUrl');
  });

  it('page when they go on, even at a quiet pace, and not on one or two', () => {
    const alarm = alarmReading(s, 'SlackPostsFailed');
    const at = (minutes: number[]) =>
      minutes.map((m) => ({ at: 3600 + m * 60 + 20, arrives: 3600 + m * 60 + 80 }));
    const range = { from: 0, to: 12 * 3600 };
    for (const aligned of [true, false]) {
      // A Slack blip: one post timed out; two posts of one outcome (reply and channel); one a while later.
      for (const transient of [[0], [0, 0], [0, 0, 180], [0, 240, 480]]) {
        const states = simulate(alarm, at(transient), { ...range, aligned });
        expect(
          states.filter((x) => x.state === 'ALARM'),
          `aligned ${aligned}: ${transient}`,
        ).toEqual([]);
      }
      // A revoked channel URL on a quiet deployment: one outcome every 15 minutes, each lost.
      const lasting = Array.from({ length: 16 }, (_, i) => i * 15);
      const fired = simulate(alarm, at(lasting), { ...range, aligned }).find((x) => x.state === 'ALARM');
      expect(fired, `aligned ${aligned}`).toBeDefined();
      const third = at(lasting)[2]!.arrives;
      expect(fired!.t - third, `aligned ${aligned}`).toBeLessThanOrEqual(alarm.period);
    }
  });

  it("logs the failed reply to an answered question's requester, with its request id and not the URL", async () => {
    const secretPath = '/commands/T0001/7/asked-reply-capability';
    copyTrigger(bench, 'trg_spf2');
    await bench.send({
      triggerId: 'trg_spf2',
      phaseId: 'ph_1',
      requestId: 'spf-asked',
      requestedBy: { source: 'schedule', id: 'nightly' },
      reply: { slackResponseUrl: bench.slack.url(secretPath), issuedAt: bench.clock.now.toISOString() },
    });
    await bench.run(bench.worker({ metrics }), await bench.receive());
    // The question in the channel (the requester's own URL heard "asked" too): its Approve button.
    const question = bench.slack.posts.find(
      (p) => p.path === '/services/channel' && JSON.stringify(p.body).includes('trg_spf2'),
    );
    const approve = (
      (question?.body.blocks ?? []) as Array<{ elements?: Array<{ action_id?: string; value?: string }> }>
    )
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === APPROVE_ACTION_ID)?.value;
    expect(approve).toBeDefined();
    await clickApprove(bench, approve!);

    // The asked request's requester can no longer be posted to (Slack refuses the URL).
    bench.slack.setStatus(404);
    const before = bench.logs.length;
    await bench.run(bench.worker({ metrics }), await bench.receive());
    expect(bench.approvals('trg_spf2')).toBe(1);
    expect(bench.slack.posts.some((p) => p.path === secretPath)).toBe(true);

    const logged = bench.logs.slice(before);
    const line = logged.find((l) => l.requestId === 'spf-asked' && /not delivered/.test(l.message));
    expect(line, JSON.stringify(logged.map((l) => [l.level, l.message, l.requestId]))).toBeDefined();
    expect(line?.level).toBe('warn');
    expect(JSON.stringify(logged)).not.toContain('asked-reply-capability');
    // Counted too, under the asked request's id.
    const counted = lines.filter(
      (l) => l.includes('"SlackPostsFailed"') && l.includes('"requestId":"spf-asked"'),
    );
    expect(counted).toHaveLength(1);
  });
});
