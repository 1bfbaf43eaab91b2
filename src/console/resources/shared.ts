/** What every resource needs: the transport, request validation and list calls. */
import type * as z from 'zod/mini';
import type { Logger } from '../../observability/logger.js';
import type { RequestOptions } from '../call.js';
import { RequestValidationError } from '../errors.js';
import type { Transport } from '../http.js';
import { type Page, PagePromise } from '../pagination.js';
import { isSafeSegment } from '../path.js';
import { type ListParams, listEnvelope, listParamsSchema } from '../schemas/common.js';

/**
 * The list envelope of `item`, typed as a Page. Builds a new schema on every call: a resource
 * keeps its own in a `once` (built on its first list call), never one per call.
 */
export function pageSchema<T>(item: z.ZodMiniType<T>): z.ZodMiniType<Page<T>> {
  return listEnvelope(item) as unknown as z.ZodMiniType<Page<T>>;
}

export interface ResourceContext {
  transport: Transport;
  maxPages: number;
  logger: Logger | undefined;
}

/** Parses `value` with `schema`; a failure becomes RequestValidationError (no request is made). */
export function validate<S extends z.ZodMiniType>(operation: string, schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new RequestValidationError(operation, result.error.issues);
  return result.data;
}

/** A path parameter: a string that can be one segment (encoding happens in `path`). */
export function pathParam(operation: string, name: string, value: unknown): string {
  if (typeof value === 'string' && isSafeSegment(value)) return value;
  throw new RequestValidationError(operation, [
    { path: [name], message: 'expected a non-empty string other than "." and ".."' },
  ]);
}

/**
 * A single-object call: `make` checks the arguments and returns the transport's promise as it is
 * (no async frame of the method's own: one microtask turn fewer per call); a check that refuses,
 * before any request, becomes a rejection like any other call's, not a throw.
 */
export function callOrReject<T>(make: () => Promise<T>): Promise<T> {
  try {
    return make();
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A list call refused before any request: it rejects like any other call (no throw from a method that returns a promise). */
export function rejectedList<T>(context: ResourceContext, error: unknown): PagePromise<T> {
  return new PagePromise<T>({
    firstUrl: context.transport.baseUrl,
    baseUrl: context.transport.baseUrl,
    maxPages: 1,
    fetchPage: () => Promise.reject(error),
  });
}

/** A list operation: `page` and `limit` default to 1 and 10 (spec 8). */
export function listCall<T>(
  context: ResourceContext,
  operation: string,
  path: string,
  schema: z.ZodMiniType<Page<T>>,
  params: ListParams | undefined,
  options: RequestOptions | undefined,
): PagePromise<T> {
  const { transport } = context;
  const parsed = listParamsSchema().safeParse(params ?? {});
  if (!parsed.success)
    return rejectedList(context, new RequestValidationError(operation, parsed.error.issues));
  const { page = 1, limit = 10 } = parsed.data;
  return new PagePromise<T>({
    firstUrl: transport.url(path, { page, limit }),
    baseUrl: transport.baseUrl,
    maxPages: context.maxPages,
    logger: context.logger,
    fetchPage: (url) =>
      transport.request({ method: 'GET', path: url, retry: 'idempotent', mutation: false, schema }, options),
  });
}
