/**
 * A release tick whose invocation is running out of time sends back what it can, oldest due
 * first, and starts nothing more: the rest stay held (nothing lost) and the next tick sends them.
 * A large due backlog (a resume after a long pause) thus drains over several ticks instead of
 * being cut by the Lambda timeout mid-write. The remaining time is the context's, injected here.
 */
import { expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { listHeld } from '../../src/state/held.js';
import { releaseHandler } from '../../src/worker/worker.js';
import { emulatorsForFile } from '../helpers/emulators.js';
import { emittedMetrics } from '../infra/alarm-reading.js';
import { holdWindowWaits } from './held-window-waits.js';

const { emu, table } = emulatorsForFile();
const NOW = '2026-11-23T20:00:00.000Z';

/** Five waits, all over; ids sort against the order their waits ended (`e` ended first). */
function holdFive(): Promise<void> {
  return holdWindowWaits(
    table,
    ['a', 'b', 'c', 'd', 'e'],
    (i) => `2026-11-23T19:5${5 - i}:00.000Z`,
    new Date(NOW),
  );
}

it('releases the oldest due while time is left and leaves the rest held for the next tick', async () => {
  await holdFive();
  const lines: { msg: string; fields: Record<string, unknown> }[] = [];
  const logger = createLogger({
    service: 'release',
    sink: (line) => {
      const { message, ...fields } = JSON.parse(line) as { message: string };
      lines.push({ msg: message, fields });
    },
  });
  const metricLines: string[] = [];
  const metrics = createMetrics({ service: 'worker', sink: (line) => metricLines.push(line) });
  const behind = () => emittedMetrics(metricLines.splice(0)).filter((m) => m.name === 'ReleaseTickBehind');
  const tick = releaseHandler({ table, sqs: emu.sqs, queueUrl: emu.queueUrl, logger, metrics });
  // Plenty of time for the chunk's read and two sends' start; then under the tick's margin.
  let asked = 0;
  const shortOfTime = { getRemainingTimeInMillis: () => (++asked <= 3 ? 50_000 : 4_000) };

  const first = await tick({ time: NOW }, shortOfTime);
  expect(first.released.sort()).toEqual(['d', 'e']);
  expect(first.left).toBe(3);
  // What it left is counted (ReleaseTickBehind pages on it; test/worker/release-tick-behind.test.ts).
  expect(first.behind).toBe(3);
  expect(behind().map((m) => m.value)).toEqual([3]);
  expect(first.notReleased).toEqual([]);
  expect(first.bodiesRead).toBe(5);
  expect(lines.find((l) => l.msg.startsWith('release tick out of time'))?.fields).toMatchObject({ left: 3 });
  expect(lines.find((l) => l.msg === 'release tick')?.fields).toMatchObject({ released: 2, left: 3 });
  expect((await listHeld(table)).map((h) => h.requestId).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);

  const next = await tick({ time: '2026-11-23T20:01:00.000Z' }, { getRemainingTimeInMillis: () => 50_000 });
  expect(next.released.sort()).toEqual(['a', 'b', 'c']);
  expect(next.left).toBe(0);
  expect(next.behind).toBe(0);
  expect(behind()).toEqual([]);
});
