/**
 * The trace id on log lines comes from the runtime's per-invocation store when it keeps one
 * (several invocations in one container share the environment, so `_X_AMZN_TRACE_ID` would name
 * another's trace), else from the environment variable.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { invocationFields, withInvocation } from '../../src/observability/invocation.js';

const holder = globalThis as { awslambda?: unknown };
const fieldsDuring = withInvocation(async () => ({ ...invocationFields() }));

afterEach(() => {
  delete holder.awslambda;
  delete process.env._X_AMZN_TRACE_ID;
});

describe('the trace id of a log line', () => {
  it("is the invoke store's when the runtime keeps one", async () => {
    process.env._X_AMZN_TRACE_ID = 'Root=1-00000000-environment;Sampled=0';
    holder.awslambda = {
      InvokeStore: { getXRayTraceId: () => 'Root=1-5759e988-store;Parent=53995c3f42cd8ad8' },
    };
    expect((await fieldsDuring({}, { awsRequestId: 'r1' })).traceId).toBe('1-5759e988-store');
  });

  it("is the environment's otherwise", async () => {
    process.env._X_AMZN_TRACE_ID = 'Root=1-00000000-environment;Sampled=0';
    holder.awslambda = { InvokeStore: { getXRayTraceId: () => undefined } };
    expect((await fieldsDuring({}, { awsRequestId: 'r2' })).traceId).toBe('1-00000000-environment');
  });
});
