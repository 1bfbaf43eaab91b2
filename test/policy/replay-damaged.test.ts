/**
 * `policy replay` decides each audit record again from its stored inputs. A damaged record (an
 * item edited by hand or cut short) is counted as not replayable; it used to end the whole replay
 * in a TypeError, so one bad item hid every other record's answer.
 */
import { describe, expect, it } from 'vitest';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';
import { testPolicy } from './fixtures.js';

const good: RecordedDecision = {
  requestId: 'good',
  at: '2026-11-23T08:30:00.000Z',
  action: 'approve_phase',
  target: 'trg_1/ph_2',
  requester: 'ci:deploy.yml',
  rule: 'CI in office hours',
  result: 'approved',
  inputs: {
    request: {
      version: 1,
      action: 'approve_phase',
      triggerId: 'trg_1',
      phaseId: 'ph_2',
      requestedBy: { source: 'ci', id: 'deploy.yml' },
      requestedAt: '2026-11-23T08:30:00.000Z',
      requestId: 'good',
    } as NonNullable<RecordedDecision['inputs']>['request'],
    now: '2026-11-23T08:30:00.000Z',
    pause: { paused: false },
  },
};

const damaged = (requestId: string, inputs: unknown): RecordedDecision =>
  ({ ...good, requestId, at: '2026-11-23T08:31:00.000Z', inputs }) as RecordedDecision;

describe('policy replay over a damaged audit record', () => {
  it('counts it as not replayable and replays the others', () => {
    const report = replayDecisions(testPolicy, [
      damaged('no-request', { now: good.inputs?.now, pause: { paused: false } }),
      damaged('no-requester', {
        ...good.inputs,
        request: { ...good.inputs?.request, requestedBy: undefined },
      }),
      damaged('no-pause', { request: good.inputs?.request, now: good.inputs?.now }),
      damaged('bad-time', { ...good.inputs, now: 'yesterday' }),
      good,
    ]);
    expect(report.notReplayable).toBe(4);
    expect(report.replayed).toBe(1);
    expect(report.unchanged).toBe(1);
  });
});
