/**
 * Event shapes the local stack hands to handlers, as AWS builds them: the EventBridge
 * scheduled event for the sweeper (SQS events are built by `event-source.ts`).
 */
import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';

export function scheduledEvent(
  at: Date = new Date(),
  ruleName = 'autopilot-sweeper-schedule',
  region = process.env.AWS_REGION || 'us-east-1',
): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    // EventBridge stamps the scheduled time to the second.
    time: `${at.toISOString().slice(0, 19)}Z`,
    region,
    resources: [`arn:aws:events:${region}:000000000000:rule/${ruleName}`],
    detail: {},
  };
}
