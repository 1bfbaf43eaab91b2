/**
 * A wrong or mis-rotated Slack signing secret (the webhook secret's `slackSigningSecret` not the
 * Slack app's) makes the webhook answer 401 to every Slack request: chat-ops is dead. Nothing
 * paged (a 4xx is no WebhookServerErrors, and no metric counted refused signatures). The endpoint
 * is public, so refused signatures alone would page on any scanner: the alarm pages when Slack's
 * requests are refused AND none is verified in the same 15 minutes, and a quiet night (no data)
 * never pages.
 *
 * The webhook wired the deployed way (webhookDepsFromEnv) on the emulators, with a signing secret
 * that is not the one the requests are signed with; real signed and unsigned requests; the alarm
 * from the synthesized stack.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, SIGNING_SECRET, signedRequest } from '../helpers/slack-requests.js';
import { alarmReading, emittedMetrics, expectReadsEmitted } from '../infra/alarm-reading.js';
import { synthesize } from '../infra/synth.js';
import { deployedWebhookOn } from './deployed-webhook.js';

const { emu: emulators } = emulatorsForFile();
const synth = synthesize({}, { bundle: false });
afterAll(() => synth.cleanup());

const deployedWebhook = (signingSecret: string) =>
  deployedWebhookOn(emulators, { env: { SLACK_SIGNING_SECRET: signingSecret } });

const help = () => signedRequest('/slack/commands', commandBody({ text: 'help' }));

describe('a webhook whose Slack signing secret is not the Slack app’s', () => {
  it('counts each Slack request it refuses, and each it verifies, under the metrics one paging alarm reads', async () => {
    const wrong = deployedWebhook('the-secret-before-the-rotation-0123');
    const refused = await wrong.app.request(help());
    expect(refused.status).toBe(401);
    const right = deployedWebhook(SIGNING_SECRET);
    expect((await right.app.request(help())).status).toBe(200);

    const rejected = emittedMetrics(wrong.lines).filter((m) => m.name === 'SlackRequestsRejected');
    const verified = emittedMetrics(right.lines).filter((m) => m.name === 'SlackRequestsVerified');
    expect(rejected, wrong.lines.join('\n')).toHaveLength(1);
    expect(verified, right.lines.join('\n')).toHaveLength(1);
    expect(emittedMetrics(wrong.lines).filter((m) => m.name === 'SlackRequestsVerified')).toEqual([]);

    const alarm = alarmReading(synth, 'SlackRequestsRejected');
    expectReadsEmitted(alarm, rejected[0]!);
    expectReadsEmitted(alarm, verified[0]!);
    expect(alarm.props.AlarmActions).toHaveLength(1);
    expect(alarm.props.OKActions).toEqual(alarm.props.AlarmActions);
    // Refused and none verified, over the same 15 minutes; a quiet night has no data and stays OK.
    expect(alarm.reads.map((r) => r.period)).toEqual([900, 900]);
    const expression = alarm.props.Metrics?.find((m) => m.Expression)?.Expression ?? '';
    expect(expression).toMatch(/AND/);
    expect(expression).toMatch(/== 0/);
    expect(alarm.props.TreatMissingData).toBe('notBreaching');
    expect(alarm.props.AlarmDescription).toContain('signing secret');
    expect(alarm.props.AlarmDescription).toContain('rotat');
  });

  it('does not count a request without Slack’s headers (a scanner) as a refused Slack request', async () => {
    const { app, lines } = deployedWebhook(SIGNING_SECRET);
    const res = await app.request(
      new Request('http://localhost/slack/commands', { method: 'POST', body: commandBody({ text: 'help' }) }),
    );
    expect(res.status).toBe(401);
    expect(emittedMetrics(lines).filter((m) => m.name === 'SlackRequestsRejected')).toEqual([]);
  });
});
