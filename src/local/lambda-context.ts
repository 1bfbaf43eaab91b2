/**
 * A Lambda-like invocation context for the local stack and tests: the same fields the real
 * runtime hands to a handler, with `getRemainingTimeInMillis()` counting down from the
 * function's timeout, so code that watches its deadline (the sweeper) behaves as on Lambda.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LambdaContextOptions {
  functionName: string;
  /** The function's configured timeout. */
  timeoutMs: number;
  memoryLimitInMB?: number;
  region?: string;
  /** Wall clock used for the deadline; injectable so tests can drive it. */
  now?: () => number;
}

export function createLambdaContext(options: LambdaContextOptions): Context {
  const now = options.now ?? Date.now;
  const deadline = now() + options.timeoutMs;
  const region = options.region ?? (process.env.AWS_REGION || 'us-east-1');
  const awsRequestId = randomUUID();
  const unsupported = () => {
    throw new Error('the legacy done/succeed/fail callbacks are not supported; return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${options.functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 512),
    awsRequestId,
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: `local/[$LATEST]${awsRequestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
