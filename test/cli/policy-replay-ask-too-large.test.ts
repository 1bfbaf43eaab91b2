/**
 * `autopilot policy replay` over a question too large to ask: Slack limits a button's value to
 * 2000 characters, and the buttons carry the request, so the worker denies an `ask` whose request
 * does not fit even with its reason shortened. Replaying the very policy that made that denial
 * reported it as `deny → ask`, a change that is not one. The replay now carries the answer out by
 * the worker's rule, measured on the recorded request (every record that kept inputs kept it, so
 * older records need nothing more). The audit trail is written by the real worker over dynalite,
 * on the bench's clock, with the channel set.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';
import { ciAsksAlways, replayReport } from './replay-run.js';

const bench = benchForFile();

/**
 * Identifiers at their 200-character bound, each character three bytes in the JSON the buttons
 * carry: with a long requester id, over Slack's limit, though each is a valid request.
 */
const WIDE = '€'.repeat(200);

async function decide(requestId: string, source: 'ci' | 'schedule', id: string, at: string) {
  bench.clock.now = new Date(at);
  await bench.send({
    triggerId: WIDE,
    phaseId: WIDE,
    requestId,
    requestedBy: { source, id: `${id}-${WIDE.slice(0, 150)}` },
  });
  await bench.run(bench.worker(), await bench.receive());
  return (await readAudit(bench.table, requestId))[0];
}

const replay = (policy: unknown) => replayReport(bench.table, policy);

beforeAll(async () => {
  // Monday 2026-11-23 (UTC policy): schedules ask a human; CI is approved in office hours.
  const asked = await decide('nightly-wide', 'schedule', 'nightly', '2026-11-23T10:00:00Z');
  expect(asked).toMatchObject({ result: 'denied', rule: 'schedules ask a human' });
  expect(asked?.reason).toContain('too large to carry in Slack buttons');
  // Nobody was asked: the channel got the denial, no question.
  expect(JSON.stringify(bench.slack.posts)).not.toContain('autopilot_approve');
  const approved = await decide('deploy-wide', 'ci', 'deploy.yml', '2026-11-23T10:05:00Z');
  expect(approved?.inputs).toBeDefined();
  expect(approved?.rule).toBe('CI in office hours');
}, 60_000);

describe('autopilot policy replay of a question too large for Slack buttons', () => {
  it('reports no change when the same policy is replayed: the question that could not be asked is denied, as the worker did', async () => {
    const report = await replay(basePolicy(bench.slack.origin));
    expect(report).toMatchObject({ replayed: 2, unchanged: 2, notReplayable: 0, changes: {}, rows: [] });
  });

  it('tells a new ask of a request too large to ask as the denial it would be', async () => {
    const report = await replay(ciAsksAlways(basePolicy(bench.slack.origin)));
    expect(report.changes).toEqual({ 'approve → deny': 1 });
    expect(report.rows[0]).toMatchObject({
      requestId: 'deploy-wide',
      new: { outcome: 'deny', rule: 'CI in office hours' },
    });
    expect(report.rows[0].new.reason).toContain('too large to carry in Slack buttons');
  });
});
