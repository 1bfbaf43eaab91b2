/**
 * Lambda Managed Instances run several invocations of one Node execution environment at once
 * (async handlers interleave on one thread). The invocation fields were one module-level
 * record: the second invocation to start overwrote it, so the first one's lines carried the
 * other's `awsRequestId` and trace, and lost them altogether once the other ended.
 * Each invocation's lines must carry its own. Lambda says invocations run concurrently by setting
 * AWS_LAMBDA_MAX_CONCURRENCY; without it they run one at a time and one record is exact.
 */
import { afterEach, expect, it } from 'vitest';
import { runsConcurrently, withInvocation } from '../../src/observability/invocation.js';
import { createLogger } from '../../src/observability/logger.js';

const holder = globalThis as { awslambda?: unknown };
afterEach(() => {
  delete holder.awslambda;
});

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

it("writes each of two interleaved invocations' lines with its own request id and trace", async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ service: 'worker', sink: (line) => lines.push(JSON.parse(line)) });
  // The runtime's per-invocation store answers with the trace of the invocation asking.
  let traceOfStarting = '';
  holder.awslambda = { InvokeStore: { getXRayTraceId: () => `Root=${traceOfStarting};Sampled=1` } };
  const gates = { a: gate(), b: gate() };
  const handler = withInvocation(
    async (event: { name: 'a' | 'b' }) => {
      logger.info('started', { name: event.name });
      await gates[event.name].opened;
      logger.info('after its wait', { name: event.name });
      return event.name;
    },
    runsConcurrently({ AWS_LAMBDA_MAX_CONCURRENCY: '64' }),
  );

  traceOfStarting = '1-aaaaaaaa-a';
  const a = handler({ name: 'a' }, { awsRequestId: 'request-a' });
  traceOfStarting = '1-bbbbbbbb-b';
  const b = handler({ name: 'b' }, { awsRequestId: 'request-b' });
  gates.a.open(); // a goes on while b is still running
  await a;
  gates.b.open(); // b goes on after a has ended
  await b;

  expect(lines.map((l) => [l.name, l.message, l.awsRequestId, l.traceId])).toEqual([
    ['a', 'started', 'request-a', '1-aaaaaaaa-a'],
    ['b', 'started', 'request-b', '1-bbbbbbbb-b'],
    ['a', 'after its wait', 'request-a', '1-aaaaaaaa-a'],
    ['b', 'after its wait', 'request-b', '1-bbbbbbbb-b'],
  ]);
  // Only the first invocation of the container started it.
  expect(lines.filter((l) => l.coldStart === true).map((l) => l.name)).not.toContain('b');
  // Between invocations a line carries none.
  logger.info('between');
  expect(lines.at(-1)).not.toHaveProperty('awsRequestId');
});

it('tells concurrent invocations by AWS_LAMBDA_MAX_CONCURRENCY, as the runtime does', () => {
  expect(runsConcurrently({ AWS_LAMBDA_MAX_CONCURRENCY: '64' })).toBe(true);
  expect(runsConcurrently({ AWS_LAMBDA_FUNCTION_NAME: 'autopilot-worker' })).toBe(false);
});

it('writes the lines of invocations run one at a time with their own request id, and none after', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ service: 'worker', sink: (line) => lines.push(JSON.parse(line)) });
  let leftOver: Promise<void> | undefined;
  const handler = withInvocation(async (event: { name: string }) => {
    logger.info('started', { name: event.name });
    await Promise.resolve();
    logger.info('answered', { name: event.name });
    // Work left running after the answer: on Lambda it would run after the next invocation began.
    leftOver ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      logger.info('left over', { name: event.name }),
    );
  }, runsConcurrently({}));

  await handler({ name: 'a' }, { awsRequestId: 'request-a' });
  await leftOver;
  await handler({ name: 'b' }, { awsRequestId: 'request-b' });
  logger.info('between');

  expect(lines.map((l) => [l.name ?? l.message, l.message, l.awsRequestId])).toEqual([
    ['a', 'started', 'request-a'],
    ['a', 'answered', 'request-a'],
    ['a', 'left over', undefined],
    ['b', 'started', 'request-b'],
    ['b', 'answered', 'request-b'],
    ['between', 'between', undefined],
  ]);
});
