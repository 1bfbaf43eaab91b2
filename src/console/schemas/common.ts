/**
 * Shapes shared by every area: the response envelope, the pagination object, the owner
 * object and list query parameters. Response schemas are loose (unknown fields are kept,
 * never rejected), and every field, at any depth, takes null and absence (`nullish`): spec
 * 2.13 leaves nullability open, and one null (a config in no team, a metric's `lineage.events`, a
 * mapping's `column`) must not make a read or a whole page fail. Only the fields that name an
 * object or entry (`id`, `name`, a trigger action's `phaseID`) and those the spec marks required
 * or rules on (the envelope's `message` and `data`, a segment's `type`, permissions that are
 * all booleans) stay strict; test/console/nested-nulls.test.ts lists them. Pagination's
 * integers stay required too: the sweeper's page walk is built on them. Request schemas are
 * strict where the spec says what is accepted.
 * Cold start (bench/cold-start.bench.ts): written with `zod/mini` (functions, not methods),
 * since classic zod costs ~40 ms at every handler's init; and no schema is built when these
 * modules load. Each one is a function (`segmentSchema()`, `once` from src/util/once.ts) that
 * builds it on its first call and returns the same schema afterwards, so a handler builds only
 * the schemas of the operations it calls. Types come from the builders
 * (`z.infer<ReturnType<typeof segmentSchema>>`).
 */
import '../../util/zod-locale.js';
import * as z from 'zod/mini';
import { once } from '../../util/once.js';

/** Pagination object of list responses (spec 2.2). */
export const paginationSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    itemsPerPage: z.number().check(z.int()),
    pageNumber: z.number().check(z.int()),
    totalItems: z.number().check(z.int()),
    /** Relative link to the next page; null (or absent) on the last page. */
    nextPage: z.nullish(z.string()),
    previousPage: z.nullish(z.string()),
    /** Relative link to the unpaged list; may be an empty string. */
    all: z.nullish(z.string()),
  }),
);
export type Pagination = z.infer<ReturnType<typeof paginationSchema>>;

/**
 * Envelope of a single-object response (spec 2.1). Builds a new schema on every call:
 * resources keep theirs in a `once` and build it on their first request.
 */
export function envelope<T extends z.ZodMiniType>(data: T) {
  return z.looseObject({ message: z.string(), data });
}

/** Envelope of a list response: `data` array plus pagination. Built on every call, like `envelope`. */
export function listEnvelope<T extends z.ZodMiniType>(item: T) {
  return z.looseObject({ message: z.string(), data: z.array(item), pagination: paginationSchema() });
}

/** Owner object (spec 2.4). Metric responses add `name` and may carry only that. */
export const ownerSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    ownerID: z.nullish(z.string()),
    ownerType: z.nullish(z.string()),
    ownerName: z.nullish(z.string()),
    ownerEmail: z.nullish(z.string()),
    name: z.nullish(z.string()),
  }),
);
export type Owner = z.infer<ReturnType<typeof ownerSchema>>;

/** `page` and `limit` of every list operation (spec 8: defaults 1 and 10). */
export const listParamsSchema = /* @__PURE__ */ once(() =>
  z.strictObject({
    page: z.optional(z.number().check(z.int(), z.gte(1))),
    limit: z.optional(z.number().check(z.int(), z.gte(1))),
  }),
);
export type ListParams = z.infer<ReturnType<typeof listParamsSchema>>;

/** A path parameter: any non-empty string (it is encoded, never trusted). */
export const pathParamSchema = /* @__PURE__ */ once(() => z.string().check(z.minLength(1)));

/** `{name, type}` metric references used by teams and experiments. */
export const metricRefSchema = /* @__PURE__ */ once(() =>
  z.looseObject({ name: z.string(), type: z.nullish(z.string()) }),
);
