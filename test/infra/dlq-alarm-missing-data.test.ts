/**
 * DeadLetterQueueNotEmpty reads the DLQ's ApproximateNumberOfMessagesVisible. SQS publishes a
 * queue's metrics only while it is active: messages sitting in a DLQ nobody sends to or reads
 * for six hours stop being reported. With missing data treated as not breaching, the alarm then
 * went to OK (and told the topic so) while the messages were still there, unhandled. It keeps its
 * state instead; a DLQ emptied by a redrive or a delete is reported (as 0) and clears it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { alarmReading, simulate } from './alarm-reading.js';
import { synthesize } from './synth.js';

const synth = synthesize({}, { bundle: false });
afterAll(() => synth.cleanup());

describe('the DLQ alarm', () => {
  it('keeps its state when SQS stops reporting an inactive DLQ', () => {
    const alarm = alarmReading(synth, 'ApproximateNumberOfMessagesVisible');
    expect(alarm.id).toMatch(/^DeadLetterQueueNotEmpty/);
    expect(alarm.props.TreatMissingData).toBe('ignore');

    // One message arrives at 01:00, reported for six hours of activity, then nothing: still ALARM at 12:00.
    const reported = Array.from({ length: 72 }, (_, i) => ({ at: 3600 + i * 300, value: 1 }));
    const states = simulate(alarm, reported, { from: 0, to: 12 * 3600, aligned: true });
    expect(states.find((s) => s.state === 'ALARM')).toBeDefined();
    expect(states.at(-1)?.state).toBe('ALARM');
  });
});
