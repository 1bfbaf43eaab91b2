/**
 * A log call never throws: fields JSON cannot write (a BigInt, a cycle deeper than redaction
 * looks) still give one line with the level and the message, saying why the fields are missing.
 * A throw there, in a worker's catch block, would fail the whole batch instead of one record.
 */
import { expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';

it('writes a line for fields JSON cannot write, instead of throwing', () => {
  const lines: string[] = [];
  const logger = createLogger({ service: 'worker', sink: (line) => lines.push(line) });
  const cycle: Record<string, unknown> = {};
  cycle.self = { a: { b: { c: { d: { e: cycle } } } } };
  expect(() => logger.warn('odd fields', { count: 10n })).not.toThrow();
  expect(() => logger.error('deep cycle', { cycle })).not.toThrow();
  const head = { time: expect.any(String), service: 'worker' };
  expect(lines.map((line) => JSON.parse(line))).toEqual([
    {
      ...head,
      level: 'warn',
      message: 'odd fields',
      logError: expect.stringMatching(/not written: .*BigInt/),
    },
    {
      ...head,
      level: 'error',
      message: 'deep cycle',
      logError: expect.stringMatching(/not written: .*circular/),
    },
  ]);
});
