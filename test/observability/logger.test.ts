/**
 * A log call never throws: fields JSON cannot write (a BigInt) still give one line with the level
 * and the message, saying why the fields are missing; a cycle, at any depth, is marked and the
 * rest written. A throw there, in a worker's catch block, would fail the whole batch instead of
 * one record.
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
      cycle: { self: { a: { b: { c: { d: { e: '[circular]' } } } } } },
    },
  ]);
});

it('merges head, invocation, child and call fields (later ones win, first places kept) and redacts by key at every level', () => {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'webhook',
    now: () => Date.parse('2026-11-23T10:00:00Z'),
    sink: (line) => lines.push(line),
    fields: { component: 'base', route: 'from base' },
  }).child({ route: 'from child' });
  const fromJson = JSON.parse('{"__proto__":{"polluted":true},"ok":1}') as Record<string, unknown>;
  logger.info('request', {
    route: 'POST /slack/commands',
    apiKey: 'k',
    nested: { authorization: 'Bearer x', list: [{ token: 't', keep: 'v' }] },
    ...fromJson,
  });
  expect(lines[0]).toBe(
    JSON.stringify({
      level: 'info',
      time: '2026-11-23T10:00:00.000Z',
      service: 'webhook',
      message: 'request',
      component: 'base',
      route: 'POST /slack/commands',
      apiKey: '[redacted]',
      nested: { authorization: '[redacted]', list: [{ token: '[redacted]', keep: 'v' }] },
      ok: 1,
    }).replace('"ok":1', '"__proto__":{"polluted":true},"ok":1'),
  );
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
