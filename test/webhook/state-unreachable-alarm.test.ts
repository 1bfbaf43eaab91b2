/**
 * A webhook that cannot write its state table (the table deleted or renamed, the role's
 * dynamodb:PutItem taken away, a KMS key policy) answers `pause` and `resume` "Could not pause:
 * the state table did not answer" (outcome `state_unreachable`): the person sees an error, and
 * automation they meant to stop goes on. Nothing counted it (answered 200, no 5xx), so no alarm
 * could page an operator.
 *
 * The webhook wired the deployed way (webhookDepsFromEnv) on the emulators, its STATE_TABLE_NAME
 * a table that does not exist (DynamoDB answers ResourceNotFoundException); real signed Slack
 * requests; the alarms from the synthesized stack.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { alarmsOf, emittedMetrics, expectReadsEmitted } from '../infra/alarm-reading.js';
import { synthesize } from '../infra/synth.js';
import { deployedWebhookOn } from './deployed-webhook.js';

const { emu: emulators } = emulatorsForFile();
const synth = synthesize({}, { bundle: false });
afterAll(() => synth.cleanup());

const deployedWebhook = () =>
  // Gone: every read and write of it is refused.
  deployedWebhookOn(emulators, { env: { STATE_TABLE_NAME: `${emulators.tableName}-deleted` } });

describe('a webhook that cannot write its state table', () => {
  for (const text of ['pause incident 42', 'resume']) {
    it(`counts a failed "${text.split(' ')[0]}" under a metric a paging alarm reads`, async () => {
      const { app, lines, requests } = deployedWebhook();
      const res = await app.request(signedRequest('/slack/commands', commandBody({ text, userId: 'U0OPS' })));
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('the state table did not answer');
      expect(requests.at(-1)).toMatchObject({ outcome: 'state_unreachable' });

      // Every verified Slack request is counted too (WebhookSigningSecretWrong reads it): not this failure.
      const emitted = emittedMetrics(lines).filter(
        (m) => m.dimensions.Service === 'webhook' && m.name !== 'SlackRequestsVerified',
      );
      const paging = alarmsOf(synth).filter(
        (alarm) =>
          (alarm.props.AlarmActions ?? []).length > 0 &&
          emitted.some((m) => alarm.reads.some((r) => r.metricName === m.name)),
      );
      expect(
        paging.map((a) => a.id),
        `webhook metrics for a failed ${text}: ${JSON.stringify(emitted.map((m) => m.name))}`,
      ).toHaveLength(1);
      const counted = emitted.find((m) => paging[0]!.reads.some((r) => r.metricName === m.name))!;
      expectReadsEmitted(paging[0]!, counted);
      expect(counted.value).toBe(1);
      expect(paging[0]!.props.AlarmDescription).toContain('state_unreachable');
    });
  }
});
