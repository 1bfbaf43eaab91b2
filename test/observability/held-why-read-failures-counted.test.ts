/**
 * `/autopilot held` and `/autopilot why` read the webhook's state table (the held partition, the
 * audit trail). StateTableUnreachable's catalogue entry, README's metric row and the
 * WebhookStateUnreachable alarm's description all say a `held` not read is counted and pages; but a
 * failed read answered the person "cannot be read right now" under outcome `read_failed` (late:
 * `timeout`), which the webhook does not count: a table the webhook cannot read (its grant on the
 * held partition or the audit trail taken away, the table deleted) left `held` and `why` failing
 * for everyone with no metric and no page.
 *
 * The webhook wired the deployed way (webhookDepsFromEnv) on the emulators, its STATE_TABLE_NAME a
 * table that does not exist; real signed Slack requests at a fixed instant; the alarms from the
 * synthesized stack.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorsForFile } from '../helpers/emulators.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { alarmsOf, emittedMetrics, expectReadsEmitted } from '../infra/alarm-reading.js';
import { synthesize } from '../infra/synth.js';
import { deployedWebhookOn } from '../webhook/deployed-webhook.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const { emu: emulators } = emulatorsForFile();
const synth = synthesize({}, { bundle: false });
afterAll(() => synth.cleanup());

describe('a webhook that cannot read its state table', () => {
  for (const text of ['held', 'why req-obs-0001']) {
    it(`counts a failed "${text.split(' ')[0]}" under the metric WebhookStateUnreachable reads`, async () => {
      const { app, lines, requests } = deployedWebhookOn(emulators, {
        env: { STATE_TABLE_NAME: `${emulators.tableName}-deleted` },
        now: NOW,
      });
      const res = await app.request(
        signedRequest('/slack/commands', commandBody({ text, userId: 'U0OPS' }), {
          timestamp: Math.floor(NOW / 1000),
        }),
      );
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('cannot be read right now');
      expect(requests.at(-1)).toMatchObject({ outcome: 'state_unreachable' });

      const emitted = emittedMetrics(lines).filter(
        (m) => m.dimensions.Service === 'webhook' && m.name !== 'SlackRequestsVerified',
      );
      const alarm = alarmsOf(synth).find((a) => a.id.startsWith('WebhookStateUnreachable'));
      expect(alarm).toBeDefined();
      const counted = emitted.find((m) => alarm!.reads.some((r) => r.metricName === m.name));
      expect(counted, `webhook metrics: ${JSON.stringify(emitted.map((m) => m.name))}`).toBeDefined();
      expectReadsEmitted(alarm!, counted!);
      expect(counted!.value).toBe(1);
    });
  }
});
