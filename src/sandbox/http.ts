/**
 * Response shapes of the sandbox: the spec's envelope `{message, data, pagination?}` and the
 * real platform's error body `{status, message, errors?: [{property, errorMessage}]}`.
 * Route handlers throw `SandboxHttpError`; one `onError` turns it into a response.
 */
import type { Context } from 'hono';
import type { z } from 'zod';

/** `a.b[0].c` from a zod issue path, as the platform names a property (the sandbox's own, not the client's). */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

export type FieldError = { property: string; errorMessage: string };

export class SandboxHttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 429 | 500 | 502 | 503,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.name = 'SandboxHttpError';
  }
}

export const badRequest = (message: string, errors?: FieldError[]) =>
  new SandboxHttpError(400, message, errors);
export const notFound = (message: string) => new SandboxHttpError(404, message);

export function errorBody(status: number, message: string, errors?: FieldError[]) {
  return errors ? { status, message, errors } : { status, message };
}

export function zodErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.flatMap((issue) => {
    // An unknown key is reported on the key itself (`permissions.foo`), not on its parent.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        property: formatPath([...issue.path, key]),
        errorMessage: `is not a known field`,
      }));
    }
    const path = formatPath(issue.path);
    return [{ property: path === '(root)' ? 'body' : path, errorMessage: issue.message }];
  });
}

/** Validates a parsed body; a failure is a 400 naming every bad field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw badRequest('Invalid request body.', zodErrors(result.error.issues));
  return result.data;
}

export function ok(c: Context, message: string, data: unknown) {
  return c.json({ message, data });
}

export type Pagination = {
  itemsPerPage: number;
  pageNumber: number;
  totalItems: number;
  nextPage: string | null;
  previousPage: string | null;
  all: string;
};

export const DEFAULT_LIMIT = 10;
/** The spec does not state a maximum `limit`; the sandbox clamps to this. */
export const MAX_LIMIT = 1000;

/** `page` and `limit` from the query (defaults 1 and 10); junk is a 400. */
export function pageParams(c: Context): { page: number; limit: number } {
  const read = (name: 'page' | 'limit', fallback: number): number => {
    const raw = c.req.query(name);
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) {
      throw badRequest(`Invalid query parameter ${name}.`, [
        { property: name, errorMessage: `${name} must be a positive integer` },
      ]);
    }
    return n;
  };
  return { page: read('page', 1), limit: Math.min(read('limit', DEFAULT_LIMIT), MAX_LIMIT) };
}

export function pagination(basePath: string, page: number, limit: number, totalItems: number): Pagination {
  const link = (p: number) => `${basePath}?page=${p}&limit=${limit}`;
  return {
    itemsPerPage: limit,
    pageNumber: page,
    totalItems,
    nextPage: page * limit < totalItems ? link(page + 1) : null,
    previousPage: page > 1 ? link(page - 1) : null,
    all: basePath,
  };
}

/** A page of `items` (already the full list) as the spec's list envelope. */
export function listPage<T>(
  c: Context,
  message: string,
  basePath: string,
  total: number,
  slice: (o: number, l: number) => T[],
) {
  const { page, limit } = pageParams(c);
  return c.json({
    message,
    data: slice((page - 1) * limit, limit),
    pagination: pagination(basePath, page, limit, total),
  });
}
