/**
 * A webhook that cannot sign chat-ops requests (its requester key's secret unreadable: a KMS key
 * policy, a deleted secret, a role lacking secretsmanager:GetSecretValue) answers every person 200
 * "not queued ... if it fails again, console-autopilot's secrets need an operator" and logs an
 * error line with outcome `signing_failed`. README ("Slack") promises the person that an operator
 * is needed, and "Operations" promises alarms that say what to do. But nothing pages: the answer is
 * a 200 (WebhookServerErrors stays calm), the request is deliberately not counted as
 * ActionsQueueUnreachable, and no metric at all is emitted for it, so no alarm can read one. Every
 * chat-ops change fails while the dashboards look calm, exactly what ActionsQueueUnreachable was
 * added to prevent for the queue.
 *
 * The webhook as built by its factory, with the deployed signer over a key set without the
 * webhook's key, its metric lines captured; the alarms from the synthesized stack.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRequesterSigner } from '../../src/actions/proof.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { commandBody, signedRequest } from '../helpers/slack-requests.js';
import { alarmsOf, emittedMetrics } from '../infra/alarm-reading.js';
import { synthesize } from '../infra/synth.js';
import { buildApp } from './harness.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');
const synth = synthesize({}, { bundle: false });
afterAll(() => synth.cleanup());

describe('a webhook that cannot sign chat-ops requests', () => {
  it('counts them under a metric that a paging alarm reads', async () => {
    const metricLines: string[] = [];
    const { app, requestLines } = buildApp({
      // Holds no webhook key: as when the key's secret cannot be read.
      signer: createRequesterSigner(async () => ({})),
      metrics: createMetrics({ service: 'webhook', now: () => NOW, sink: (line) => metricLines.push(line) }),
      now: () => NOW,
    });
    const res = await app.request(
      signedRequest('/slack/commands', commandBody({ text: 'approve trg_1 ph_1 smoke green' }), {
        timestamp: Math.floor(NOW / 1000),
      }),
    );
    expect(res.status).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('need an operator');
    expect(requestLines().at(-1)).toMatchObject({ outcome: 'signing_failed' });

    // Every verified Slack request is counted too (WebhookSigningSecretWrong reads it): not this failure.
    const emitted = emittedMetrics(metricLines).filter(
      (m) => m.dimensions.Service === 'webhook' && m.name !== 'SlackRequestsVerified',
    );
    const paging = alarmsOf(synth).filter((alarm) =>
      alarm.reads.some((read) =>
        emitted.some((m) => m.name === read.metricName && read.dimensions.Service === 'webhook'),
      ),
    );
    expect(
      paging.map((a) => a.id),
      `webhook metrics for a request it could not sign: ${JSON.stringify(emitted.map((m) => m.name))}`,
    ).not.toEqual([]);
  });
});
