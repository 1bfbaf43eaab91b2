/**
 * The WorkerErrors alarm sends the operator to the saved query "errors by function". The worker's
 * queue path never fails an invocation for one record (records fail as batch item failures), so
 * what the alarm counts is a failed release tick, a timeout or an init failure: the tick logs its
 * failure at level error, and the query also reads the runtime's own plain-text lines.
 */
import { describe, expect, it } from 'vitest';
import { SAVED_QUERIES } from '../../infra/operations.js';
import { createLogger } from '../../src/observability/logger.js';
import { createWorkerEntry, type WorkerDeps } from '../../src/worker/worker.js';

describe('the WorkerErrors runbook', () => {
  it('finds the failed release tick with the saved query "errors by function"', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({ service: 'worker', sink: (line) => lines.push(JSON.parse(line)) });
    const failing = {
      send: async () => {
        throw Object.assign(new Error('Throughput exceeds the current capacity'), {
          name: 'ProvisionedThroughputExceededException',
        });
      },
    };
    const deps = {
      table: { client: failing, tableName: 'state' },
      sqs: failing,
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/actions',
      logger,
    } as unknown as WorkerDeps;
    const entry = createWorkerEntry(deps);

    // The tick fails the invocation: Lambda counts it in Errors, so WorkerErrors fires.
    await expect(entry({ time: '2026-11-22T10:00:00Z' })).rejects.toThrow();

    const query = SAVED_QUERIES['errors by function']!.toString();
    const errorLines = lines.filter((l) => l.level === 'error');
    expect(errorLines.map((l) => l.message)).toEqual(['release tick failed']);
    expect(JSON.stringify(errorLines[0])).toContain('ProvisionedThroughputExceededException');
    expect(query).toContain('level = "error"');
    // What a timeout or an uncaught error writes (the runtime's lines are text, with no level).
    const runtimeFilter = /@message like \/(.+)\//.exec(query)?.[1];
    expect(runtimeFilter, query).toBeDefined();
    for (const line of [
      '2026-11-22T10:00:03.000Z c0ffee Task timed out after 60.06 seconds',
      '2026-11-22T10:00:01.000Z c0ffee ERROR Invoke Error {"errorType":"Error"}',
      '{"errorType":"Runtime.ImportModuleError","errorMessage":"Cannot find module"}',
    ])
      expect(line).toMatch(new RegExp(runtimeFilter as string));
  });
});
