import { describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  ApiError,
  ApiTimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConsoleError,
  InternalServerError,
  isTransientError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestValidationError,
  UnprocessableEntityError,
} from '../../src/console/index.js';
import { useScriptedServer } from './helpers/scripted-server.js';

const { server, client } = useScriptedServer();

async function failWith(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<unknown> {
  server.setScript(() => ({ status, body, headers }));
  return client()
    .segments.get('seg_1')
    .catch((e: unknown) => e);
}

describe('error mapping', () => {
  const cases: Array<[number, abstract new (...args: never[]) => ApiError]> = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, InternalServerError],
    [503, InternalServerError],
  ];
  it.each(cases.map(([status, type]) => [status, type.name, type] as const))(
    'maps %i to %s',
    async (status, _, type) => {
      const error = await failWith(status, { status, message: 'nope' });
      expect(error).toBeInstanceOf(type);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toBeInstanceOf(ConsoleError);
      expect((error as ApiError).status).toBe(status);
      expect((error as Error).name).toBe(type.name);
    },
  );

  it('maps other statuses to a plain ApiError', async () => {
    const error = await failWith(418, { message: 'teapot' });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(BadRequestError);
  });

  it('parses the real error body: status, message and errors[]', async () => {
    const error = (await failWith(
      400,
      {
        status: 400,
        message: 'Invalid request',
        errors: [{ property: 'phaseID', errorMessage: 'is not the current phase' }],
      },
      { 'x-request-id': 'req-123' },
    )) as ApiError;
    expect(error.errors).toEqual([{ property: 'phaseID', errorMessage: 'is not the current phase' }]);
    expect(error.message).toContain('Invalid request');
    expect(error.message).toContain('phaseID: is not the current phase');
    expect(error.requestId).toBe('req-123');
    expect(error.headers['x-request-id']).toBe('req-123');
    expect(error.body).toMatchObject({ status: 400 });
    expect(error.path).toBe('/console/v1/segments/seg_1');
  });

  it('survives an HTML body', async () => {
    const error = (await failWith(502, '<html>\n<body>Bad   gateway</body></html>', {
      'content-type': 'text/html',
    })) as ApiError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.body).toContain('<html>');
    expect(error.errors).toBeUndefined();
    expect(error.message).toContain('Bad gateway');
  });

  it('survives an empty body and a non-JSON text body', async () => {
    const empty = (await failWith(404, '')) as ApiError;
    expect(empty).toBeInstanceOf(NotFoundError);
    expect(empty.body).toBeUndefined();
    const text = (await failWith(500, 'upstream exploded')) as ApiError;
    expect(text.body).toBe('upstream exploded');
  });

  it('survives an errors field that is not a list of objects, keeping a plain string entry', async () => {
    const error = (await failWith(400, { message: 'bad', errors: ['x', { property: 1 }] })) as ApiError;
    expect(error.errors).toEqual([
      { property: '', errorMessage: 'x' },
      { property: '', errorMessage: '""' },
    ]);
  });

  it('bounds what the platform said, however much it was: message, field errors, a raw body', async () => {
    const flood = (await failWith(400, {
      status: 400,
      message: 'm'.repeat(500_000),
      errors: Array.from({ length: 100_000 }, (_, i) => ({
        property: `p${i}`,
        errorMessage: 'e'.repeat(50),
      })),
      nested: { a: { b: { c: { d: { e: 'deep' } } } } },
    })) as ApiError;
    expect(flood).toBeInstanceOf(BadRequestError);
    expect(flood.said).toMatch(/^m{2000}… \(\d[\d,]* characters more\)$/);
    expect(flood.message.length).toBeLessThan(2_200);
    expect(flood.message).toContain('… (');
    // The whole error as a log line carries it: bounded too.
    expect(JSON.stringify(flood).length).toBeLessThan(32_000);
    const raw = (await failWith(502, `<html>${'x'.repeat(1_000_000)}</html>`)) as ApiError;
    expect(String(raw.body).length).toBeLessThan(2_100);
    expect(raw.body).toMatch(/… \([\d,]+ characters more\)$/);
    expect(JSON.stringify(raw).length).toBeLessThan(4_000);
  });

  it('reads Retry-After onto a RateLimitError', async () => {
    const error = (await failWith(429, { message: 'slow down' }, { 'retry-after': '7' })) as RateLimitError;
    expect(error.retryAfterMs).toBe(7_000);
    const without = (await failWith(429, { message: 'slow down' })) as RateLimitError;
    expect(without.retryAfterMs).toBeUndefined();
  });
});

describe('isTransientError', () => {
  const init = (status: number) => ({ status, headers: {}, body: undefined, method: 'GET', path: '/x' });
  it('is true for connection, timeout, 408, 429 and 5xx', () => {
    expect(isTransientError(new ApiConnectionError('x', true))).toBe(true);
    expect(isTransientError(new ApiTimeoutError('x'))).toBe(true);
    expect(isTransientError(new ApiError(init(408)))).toBe(true);
    expect(isTransientError(new RateLimitError(init(429), undefined))).toBe(true);
    expect(isTransientError(new InternalServerError(init(503)))).toBe(true);
  });
  it('is false for other client errors and non-API errors', () => {
    expect(isTransientError(new BadRequestError(init(400)))).toBe(false);
    expect(isTransientError(new NotFoundError(init(404)))).toBe(false);
    expect(isTransientError(new RequestValidationError('x', []))).toBe(false);
    expect(isTransientError(new Error('x'))).toBe(false);
  });
});
