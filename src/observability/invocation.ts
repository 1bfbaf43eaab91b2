/**
 * The Lambda invocation a log line belongs to: Lambda's request id, whether this invocation
 * started the container (cold start) and the X-Ray trace id, added to every line the logger
 * writes while the handler runs. A Node.js Lambda container runs one invocation at a time, so
 * one module-level record is enough; outside Lambda (local stack, tests) the fields are absent.
 */

export interface InvocationFields {
  awsRequestId?: string;
  coldStart?: boolean;
  traceId?: string;
}

let coldStart = true;
let current: InvocationFields = {};

/** The fields of the invocation running now (empty between invocations). */
export function invocationFields(): InvocationFields {
  return current;
}

/** `Root=1-…;Parent=…;Sampled=1` → `1-…` (what the X-Ray console searches by). */
function traceRoot(header: string | undefined): string | undefined {
  return header?.match(/Root=([^;]+)/)?.[1];
}

type InvokeStoreHolder = { awslambda?: { InvokeStore?: { getXRayTraceId?: () => string | undefined } } };

/**
 * The invocation's X-Ray header: from the runtime's invoke store where it keeps one per
 * invocation (set when a container runs several at once), else `_X_AMZN_TRACE_ID`; Powertools
 * reads it in the same order (@aws-lambda-powertools/commons, getXrayTraceDataFromEnv).
 */
function traceHeader(): string | undefined {
  const store = (globalThis as InvokeStoreHolder).awslambda?.InvokeStore;
  return store?.getXRayTraceId?.() ?? process.env._X_AMZN_TRACE_ID;
}

/** Wraps a Lambda handler so its log lines carry the invocation's fields. */
export function withInvocation<E, C, R>(
  handler: (event: E, context: C) => Promise<R>,
): (event: E, context: C) => Promise<R> {
  return async (event, context) => {
    const traceId = traceRoot(traceHeader());
    const awsRequestId = (context as { awsRequestId?: unknown } | undefined)?.awsRequestId;
    current = {
      ...(typeof awsRequestId === 'string' ? { awsRequestId } : {}),
      coldStart,
      ...(traceId ? { traceId } : {}),
    };
    coldStart = false;
    try {
      return await handler(event, context);
    } finally {
      current = {};
    }
  };
}
