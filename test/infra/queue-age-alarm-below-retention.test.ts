/**
 * `alarmQueueAgeMinutes` accepted up to 5760 minutes, which is the actions queue's whole retention
 * (4 days): SQS deletes a message once it is that old, so ApproximateAgeOfOldestMessage never
 * exceeds it, and ActionsQueueBacklog (GreaterThanThreshold) set there could never fire, however
 * stuck the worker. Every accepted value must leave the alarm a message age it can see.
 */
import { afterAll, expect, it } from 'vitest';
import { alarmsOf } from './alarm-reading.js';
import { type Synthesized, synthesize } from './synth.js';

const made: Synthesized[] = [];
afterAll(() => {
  for (const s of made) s.cleanup();
});

/** The actions queue's retention, in seconds, as the template sets it. */
function actionsQueueRetention(s: Synthesized): number {
  const queues = Object.entries(s.template.findResources('AWS::SQS::Queue'));
  const actions = queues.find(([id]) => id.startsWith('ActionsQueue'));
  expect(actions, 'the actions queue').toBeDefined();
  return Number((actions![1].Properties as { MessageRetentionPeriod: number }).MessageRetentionPeriod);
}

it('never accepts a queue-age threshold that ActionsQueueBacklog could not reach', () => {
  // The largest value the context accepts: a smaller one is accepted too, a larger one refused.
  let s: Synthesized;
  try {
    s = synthesize({ alarmQueueAgeMinutes: '5760' }, { bundle: false });
  } catch (error) {
    // Refused at synth, with the key named: no unreachable alarm is deployed.
    expect(String(error)).toContain('alarmQueueAgeMinutes');
    return;
  }
  made.push(s);
  const backlog = alarmsOf(s).find((a) => a.id.startsWith('ActionsQueueBacklog'));
  expect(backlog).toBeDefined();
  expect(backlog!.props.ComparisonOperator).toBe('GreaterThanThreshold');
  expect(backlog!.props.Threshold).toBeLessThan(actionsQueueRetention(s));
});
