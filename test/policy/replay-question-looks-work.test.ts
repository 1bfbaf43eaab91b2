/**
 * `policy replay` over a large trail was slow: it followed every new question through the
 * worker's hourly looks, deciding it afresh at each (337 decisions for one question under
 * `maxDeferHours` 336), although a question's answer stays "ask" until a freeze is in force at a
 * look or the request expires. 1,000 questions in a trail of 5,000 records took seconds; 5,000
 * questions in a month, most of a minute. The replay now decides a question again only at the
 * first look where its answer can change (or the last before the replay's end), counting the
 * looks it passes, so the end it reports (time, looks, rule) is the one deciding at every look
 * gives: that is checked here against a model that decides at every look, and the work is bounded
 * by counting the decisions made (not by timing them).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { nextQuestionLook } from '../../src/policy/ask-channel.js';
import * as decideModule from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { type RecordedDecision, replayDecisions } from '../../src/policy/replay.js';

// Counts the decisions the replay makes (the worker's `decide`, unchanged).
vi.mock('../../src/policy/decide.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/policy/decide.js')>();
  return { ...actual, decide: vi.fn(actual.decide) };
});
const decisions = () => vi.mocked(decideModule.decide).mock.calls.length;
afterEach(() => vi.mocked(decideModule.decide).mockClear());

const HOUR = 3_600_000;

/** CI asks a person at any time; freezes as given. */
function asks(freezes: { start: string; end: string }[] = [], maxDeferHours = 336) {
  return parsePolicy({
    version: 1,
    timezone: 'UTC',
    approvals: {
      rules: [{ name: 'CI asks', when: { requesters: ['ci:*'] }, decision: 'ask' }],
      freezes: freezes.map((f, i) => ({ name: `f${i}`, ...f })),
      maxDeferHours,
    },
  });
}

/** The old worker's approval of request `id`, requested and decided at `at`. */
function approvedAt(id: string, at: string): RecordedDecision {
  return {
    requestId: id,
    at,
    action: 'approve_phase',
    target: 'trigger trg_1 phase ph_1',
    requester: 'ci:deploy.yml',
    rule: 'CI',
    result: 'approved',
    inputs: {
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: at,
        requestId: id,
      } as NonNullable<RecordedDecision['inputs']>['request'],
      now: at,
      pause: { paused: false },
      channel: true,
    },
  };
}

/** The worker's chain without a person's answer, deciding at every hourly look: its end. */
function everyLook(policy: ReturnType<typeof asks>, record: RecordedDecision, until: number) {
  const request = record.inputs?.request as ActionRequest;
  const from = Date.parse(record.at);
  let at = from;
  let looks = 0;
  for (;;) {
    const decision = decideModule.decide(policy, {
      request,
      now: new Date(at),
      pause: { paused: false },
    });
    const next = nextQuestionLook(policy, request, at);
    if (decision.outcome !== 'ask' || !(next > at) || next > until)
      return { outcome: decision.outcome, rule: decision.rule, at: new Date(at).toISOString(), looks };
    at = next;
    looks += 1;
  }
}

describe('policy replay follows a question with few decisions', () => {
  it('decides a question nobody answers twice, not at each of its 337 hourly looks', () => {
    const record = approvedAt('deploy-1', '2026-11-02T07:10:00.000Z');
    const report = replayDecisions(asks(), [record]);
    expect(report.rows[0]?.followed).toMatchObject({
      outcome: 'deny',
      rule: 'maxDeferHours',
      afterMs: 336 * HOUR + 1000,
      looks: 337,
    });
    // The recorded decision and the look past the expiry.
    expect(decisions()).toBeLessThanOrEqual(3);
  });

  it('ends each question where deciding at every look ends it: freezes between looks, at a look, the replay’s end', () => {
    const freezes = [
      { start: '2026-11-03T10:20:00Z', end: '2026-11-03T10:50:00Z' }, // between two looks: missed
      { start: '2026-11-05T12:30:00Z', end: '2026-11-05T14:00:00Z' }, // holds a look
      { start: '2026-11-09T00:00:00Z', end: '2026-11-09T00:00:00.001Z' }, // one instant
    ];
    const policy = asks(freezes, 100);
    const starts = ['2026-11-02T07:10:00.000Z', '2026-11-03T09:20:00.000Z', '2026-11-05T09:30:00.000Z'];
    const untils = ['2026-11-04T00:00:00.000Z', '2026-11-05T13:29:00.000Z', '2026-11-30T00:00:00.000Z'];
    for (const start of [...starts, '2026-11-08T20:00:00.000Z', '2026-11-08T21:00:00.000Z']) {
      for (const until of untils) {
        const record = approvedAt(`r-${start}`, start);
        const followed = replayDecisions(policy, [record], { until: new Date(until) }).rows[0]?.followed;
        const model = everyLook(policy, record, Date.parse(until));
        expect({ start, until, ...followed }).toMatchObject({ start, until, ...model });
      }
    }
  });

  it('makes a few decisions per question over a month of 2,000 questions', () => {
    const from = Date.parse('2026-10-01T00:00:00.000Z');
    const records = Array.from({ length: 2000 }, (_, i) =>
      approvedAt(`r-${i}`, new Date(from + i * 20 * 60_000).toISOString()),
    );
    const report = replayDecisions(
      asks([{ start: '2026-10-20T00:00:00Z', end: '2026-10-21T00:00:00Z' }]),
      records,
      {
        until: new Date('2026-11-01T00:00:00.000Z'),
      },
    );
    expect(report.rows).toHaveLength(2000);
    // Deciding at every look made about 390,000 decisions here.
    expect(decisions()).toBeLessThanOrEqual(3 * 2000);
  });
});
