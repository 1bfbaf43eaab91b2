/**
 * Lambda HTTP event factories: API Gateway HTTP API (payload v2), Lambda Function URL (v2
 * shape, different request context) and API Gateway REST API (payload v1, with
 * multi-value headers), as AWS delivers them, plus a Lambda context fixture.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from 'aws-lambda';

export interface HttpRequestSpec {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Send the body base64-encoded (as API Gateway does for binary media types and Function URLs may). */
  base64?: boolean;
  query?: string;
}

function encodeBody(spec: HttpRequestSpec): { body: string | undefined; isBase64Encoded: boolean } {
  if (spec.body === undefined) return { body: undefined, isBase64Encoded: false };
  const bytes = typeof spec.body === 'string' ? Buffer.from(spec.body, 'utf8') : spec.body;
  return spec.base64
    ? { body: bytes.toString('base64'), isBase64Encoded: true }
    : { body: bytes.toString('utf8'), isBase64Encoded: false };
}

/** v2 payloads join repeated headers with commas, as API Gateway and Function URLs do. */
function joinedHeaders(headers: HttpRequestSpec['headers'] = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers))
    out[key.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  return out;
}

const EPOCH = 1_790_000_000_000;

export function httpApiV2Event(spec: HttpRequestSpec): APIGatewayProxyEventV2 {
  const { body, isBase64Encoded } = encodeBody(spec);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: spec.path,
    rawQueryString: spec.query ?? '',
    headers: { host: 'abc123.execute-api.eu-central-1.amazonaws.com', ...joinedHeaders(spec.headers) },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-central-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method: spec.method,
        path: spec.path,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'Slackbot 1.0',
      },
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      routeKey: '$default',
      stage: '$default',
      time: '22/Nov/2026:03:00:00 +0000',
      timeEpoch: EPOCH,
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded,
  };
}

export function functionUrlEvent(spec: HttpRequestSpec): APIGatewayProxyEventV2 {
  const event = httpApiV2Event(spec);
  const domain = 'xyz789abcdef.lambda-url.eu-central-1.on.aws';
  return {
    ...event,
    headers: { ...event.headers, host: domain },
    requestContext: {
      ...event.requestContext,
      apiId: 'xyz789abcdef',
      domainName: domain,
      domainPrefix: 'xyz789abcdef',
    },
  };
}

export function restApiV1Event(spec: HttpRequestSpec): APIGatewayProxyEvent {
  const { body, isBase64Encoded } = encodeBody(spec);
  const multiValueHeaders: Record<string, string[]> = {
    Host: ['abc123.execute-api.eu-central-1.amazonaws.com'],
  };
  const headers: Record<string, string> = { Host: 'abc123.execute-api.eu-central-1.amazonaws.com' };
  for (const [key, value] of Object.entries(spec.headers ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    multiValueHeaders[key] = values;
    headers[key] = values[values.length - 1]!; // v1 keeps the last value in `headers`
  }
  return {
    resource: '/{proxy+}',
    path: spec.path,
    httpMethod: spec.method,
    headers,
    multiValueHeaders,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: { proxy: spec.path.slice(1) },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authorizer: null,
      domainName: 'abc123.execute-api.eu-central-1.amazonaws.com',
      domainPrefix: 'abc123',
      httpMethod: spec.method,
      identity: {
        sourceIp: '203.0.113.7',
        userAgent: 'Slackbot 1.0',
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: `/prod${spec.path}`,
      protocol: 'HTTP/1.1',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTimeEpoch: EPOCH,
      resourceId: 'abcdef',
      resourcePath: '/{proxy+}',
      stage: 'prod',
    },
    body: body ?? null,
    isBase64Encoded,
  };
}

export const EVENT_SHAPES = {
  'API Gateway HTTP API (v2)': httpApiV2Event,
  'Lambda Function URL': functionUrlEvent,
  'API Gateway REST API (v1)': restApiV1Event,
} as const;

export function lambdaContext(overrides: Partial<Context> = {}): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'autopilot-webhook',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:autopilot-webhook',
    memoryLimitInMB: '512',
    awsRequestId: 'a1b2c3d4-0000-4000-8000-000000000000',
    logGroupName: '/aws/lambda/autopilot-webhook',
    logStreamName: '2026/11/22/[$LATEST]abcdef',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
    ...overrides,
  };
}
