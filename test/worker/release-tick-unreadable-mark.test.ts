/**
 * A last-receive mark whose stored request does not parse (a damaged item, a body the worker of
 * another version wrote) can be told to nobody. The release tick threw on it at every look: each
 * minute for the mark's week of TTL it logged "could not look at a copy that died…: the next tick
 * does", an error line (and a page, where errors page) that nothing could ever settle. It is now
 * logged once as an error, naming its request and message, and removed; the tick's other work goes
 * on. The deployed tick on dynalite and fauxqs.
 */
import { expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { lastReceivePages, markLastReceive } from '../../src/state/last-receive.js';
import type { ReleaseSummary } from '../../src/worker/release.js';
import { lambdaContext } from '../helpers/lambda.js';
import { basePolicy, benchResetEachTest, type LogLine } from './fixture.js';
import { deployedTick, holdForWindow } from './stuck.js';

const bench = benchResetEachTest();

it('logs a mark whose request does not parse once, removes it, and does the rest of its work', async () => {
  const lines: LogLine[] = [];
  const logger = createLogger({ service: 'worker', sink: (line) => lines.push(JSON.parse(line) as LogLine) });
  const tick = deployedTick(bench, parsePolicy(basePolicy(bench.slack.origin)), undefined, undefined, logger);
  const tickAt = async (iso: string) =>
    (await tick({ time: iso }, lambdaContext({ timeoutMs: 60_000 }))) as ReleaseSummary;

  await markLastReceive(bench.table, {
    requestId: 'ci-damaged-mark',
    messageId: 'msg-damaged',
    deadlineMs: Date.parse('2026-11-23T10:00:30Z'),
    markedAtMs: Date.parse('2026-11-23T10:00:00Z'),
    receives: 5,
    effectKey: 'approve_phase#trg_damaged#ph_1',
    request: '{"version":1,"action":"approve_phase","trig',
  });
  // Other work of the same tick: a request held for a window whose next look has come.
  await holdForWindow(bench, 'ci-held-beside');

  const first = await tickAt('2026-11-23T10:02:00Z');
  expect(first.released).toEqual(['ci-held-beside']);
  const errors = lines.filter((l) => l.level === 'error');
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({ requestId: 'ci-damaged-mark', messageId: 'msg-damaged' });
  const marks = [];
  for await (const page of lastReceivePages(bench.table)) marks.push(...page);
  expect(marks).toEqual([]);

  lines.length = 0;
  await tickAt('2026-11-23T10:03:00Z');
  expect(lines.filter((l) => l.level === 'error')).toEqual([]);
});
