/**
 * Shapes shared by every area: the response envelope, the pagination object, the owner
 * object and list query parameters. Response schemas are loose (unknown fields are kept,
 * never rejected); request schemas are strict where the spec says what is accepted.
 * Cold start (bench/cold-start.bench.ts): written with `zod/mini` (functions, not methods),
 * since classic zod costs ~40 ms at every handler's init; and every exported schema is a
 * `z.lazy`, built on its first parse, so a handler builds only the schemas of the operations
 * it calls (the paths and messages of validation errors are the same).
 */
import '../../util/zod-locale.js';
import * as z from 'zod/mini';

/** Pagination object of list responses (spec 2.2). */
export const PaginationSchema = z.lazy(() =>
  z.looseObject({
    itemsPerPage: z.number().check(z.int()),
    pageNumber: z.number().check(z.int()),
    totalItems: z.number().check(z.int()),
    /** Relative link to the next page; null (or absent) on the last page. */
    nextPage: z.nullish(z.string()),
    previousPage: z.nullish(z.string()),
    /** Relative link to the unpaged list; may be an empty string. */
    all: z.optional(z.string()),
  }),
);
export type Pagination = z.infer<typeof PaginationSchema>;

/** Envelope of a single-object response (spec 2.1); lazy like the rest (resources build theirs at import). */
export function envelope<T extends z.ZodMiniType>(data: T) {
  return z.lazy(() => z.looseObject({ message: z.string(), data }));
}

/** Envelope of a list response: `data` array plus pagination. */
export function listEnvelope<T extends z.ZodMiniType>(item: T) {
  return z.lazy(() =>
    z.looseObject({ message: z.string(), data: z.array(item), pagination: PaginationSchema }),
  );
}

/** Owner object (spec 2.4). Metric responses add `name` and may carry only that. */
export const OwnerSchema = z.lazy(() =>
  z.looseObject({
    ownerID: z.optional(z.string()),
    ownerType: z.optional(z.string()),
    ownerName: z.optional(z.string()),
    ownerEmail: z.optional(z.string()),
    name: z.optional(z.string()),
  }),
);
export type Owner = z.infer<typeof OwnerSchema>;

/** `page` and `limit` of every list operation (spec 8: defaults 1 and 10). */
export const ListParamsSchema = z.lazy(() =>
  z.strictObject({
    page: z.optional(z.number().check(z.int(), z.gte(1))),
    limit: z.optional(z.number().check(z.int(), z.gte(1))),
  }),
);
export type ListParams = z.infer<typeof ListParamsSchema>;

/** A path parameter: any non-empty string (it is encoded, never trusted). */
export const PathParamSchema = z.lazy(() => z.string().check(z.minLength(1)));

/** `{name, type}` metric references used by teams and experiments. */
export const MetricRefSchema = z.lazy(() => z.looseObject({ name: z.string(), type: z.string() }));
