/**
 * `autopilot policy replay` of a new question: the real worker approved a CI release at 10:00 on
 * a Monday; a new policy asks a person instead. The deployed worker would look at that question
 * every hour and, if nobody answered, deny it at its expiry (`maxDeferHours` = 72); the replay
 * showed `approve → ask` and nothing after. It now tells the end the worker reaches without an
 * answer, in its counts, its table and `--json` (as a followed deferral), and stops at the
 * replay's end (the CLI's now) where the worker has not looked yet. The audit trail is written by
 * the real worker over the emulators, on the bench's clock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../../src/state/audit.js';
import { basePolicy, benchForFile } from '../worker/fixture.js';
import { ciAsksAlways, runReplay } from './replay-run.js';

const bench = benchForFile();

beforeAll(async () => {
  const at = '2026-11-23T10:00:00Z'; // Monday, office hours (UTC policy)
  bench.clock.now = new Date(at);
  await bench.send({ triggerId: 'trg_1', phaseId: 'ph_1', requestId: 'deploy-1', requestedAt: at });
  await bench.run(bench.worker(), await bench.receive());
  expect((await readAudit(bench.table, 'deploy-1'))[0]).toMatchObject({ result: 'approved' });
}, 60_000);

const asks = () => ciAsksAlways(basePolicy(bench.slack.origin));
const row = (out: string, id: string) => out.split('\n').find((line) => line.startsWith(`${id} `)) ?? '';

describe('autopilot policy replay follows a new question', () => {
  it('tells the denial at the expiry the worker reaches if nobody answers, in the counts and the table', async () => {
    const out = await runReplay(bench.table, asks(), { json: false });
    expect(out).toContain('approve → ask → deny (maxDeferHours): 1 (after 3d)');
    expect(row(out, 'deploy-1')).toMatch(/ask \(CI in office hours\) +deny after 3d \(maxDeferHours\)$/);
  });

  it('gives the row the fields of a followed deferral in --json', async () => {
    const report = JSON.parse(await runReplay(bench.table, asks(), { json: true }));
    expect(report.changes).toEqual({ 'approve → ask → deny (maxDeferHours)': 1 });
    expect(report.rows[0]).toMatchObject({
      requestId: 'deploy-1',
      old: { outcome: 'approve' },
      new: { outcome: 'ask', rule: 'CI in office hours' },
      followed: {
        outcome: 'deny',
        rule: 'maxDeferHours',
        at: '2026-11-26T10:00:01.000Z',
        afterMs: 72 * 3_600_000 + 1000,
        looks: 73,
      },
    });
  });

  it('stops at the replay’s end, where the question would still be open, and says so', async () => {
    const out = await runReplay(bench.table, asks(), { json: false, now: '2026-11-23T12:30:00Z' });
    expect(out).toContain('approve → ask → ask (not followed further): 1');
    expect(row(out, 'deploy-1')).toContain('still asking a person after 2h (the replay ends first)');
  });
});
