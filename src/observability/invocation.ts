/**
 * The Lambda invocation a log line belongs to: Lambda's request id, whether this invocation
 * started the container (cold start) and the X-Ray trace id, added to every line the logger
 * writes while the handler runs (and by work it started). Where invocations run concurrently
 * (Lambda Managed Instances interleave many of one Node environment: async handlers on one
 * thread) they are kept per async context, for a shared record gave one invocation's lines
 * another's id; elsewhere Lambda runs one invocation at a time and one record is exact. Outside
 * an invocation (between them, the local stack, tests) the fields are absent.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface InvocationFields {
  awsRequestId?: string;
  coldStart?: boolean;
  traceId?: string;
}

let coldStart = true;
const NONE: InvocationFields = Object.freeze({});
/**
 * Per async context, for concurrent invocations: what AWS's guide for Managed Instances
 * recommends for per-request state. Its cost: once a run has begun, Node keeps promise hooks
 * that run on every promise (200k awaits 12–16 ms → 37–45 ms on Node 20), and a cold start's
 * first request makes thousands of them: without it, the first complete request took about
 * 7 ms less for the webhook (79 vs 86 ms), 15–20 ms less for the worker and 20–30 ms less for
 * the sweeper (`npm run bench -- first-request`, paired runs of 9 fresh processes each, Node 20).
 * So it is used only where Lambda says
 * invocations run concurrently, by setting AWS_LAMBDA_MAX_CONCURRENCY, the same test the
 * runtime's own invoke store (@aws/lambda-invoke-store) makes to choose its AsyncLocalStorage.
 */
const invocations = new AsyncLocalStorage<InvocationFields>();
/** The one running invocation's fields, where invocations run one at a time. */
let current: InvocationFields = NONE;

/** The fields of the invocation this code runs in (empty outside one). */
export function invocationFields(): InvocationFields {
  // Until a first `run`, the store is disabled: `getStore` answers undefined and installs no hook.
  return invocations.getStore() ?? current;
}

/** Whether Lambda runs several invocations of this environment at once (Managed Instances). */
export function runsConcurrently(env: NodeJS.ProcessEnv = process.env): boolean {
  return 'AWS_LAMBDA_MAX_CONCURRENCY' in env;
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

/**
 * Wraps a Lambda handler so its log lines carry the invocation's fields. `concurrent`: whether
 * invocations may overlap (default: as Lambda's environment says, `runsConcurrently`). One at a
 * time, work an invocation leaves running after it answers logs without its fields.
 */
export function withInvocation<E, C, R>(
  handler: (event: E, context: C) => Promise<R>,
  concurrent = runsConcurrently(),
): (event: E, context: C) => Promise<R> {
  return async (event, context) => {
    const traceId = traceRoot(traceHeader());
    const awsRequestId = (context as { awsRequestId?: unknown } | undefined)?.awsRequestId;
    // Assigned, not spread: a spread in an object literal costs about a microsecond on Node 20,
    // on every invocation. Same fields, same order.
    const fields: InvocationFields = {};
    if (typeof awsRequestId === 'string') fields.awsRequestId = awsRequestId;
    fields.coldStart = coldStart;
    if (traceId) fields.traceId = traceId;
    coldStart = false;
    if (concurrent) {
      return invocations.run(fields, () => handler(event, context));
    }
    current = fields;
    try {
      return await handler(event, context);
    } finally {
      current = NONE;
    }
  };
}
