/**
 * Shapes shared by every area: the response envelope, the pagination object, the owner
 * object and list query parameters. Response schemas are loose (unknown fields are kept,
 * never rejected); request schemas are strict where the spec says what is accepted.
 */
import { z } from 'zod';

/** Pagination object of list responses (spec 2.2). */
export const PaginationSchema = z.looseObject({
  itemsPerPage: z.number().int(),
  pageNumber: z.number().int(),
  totalItems: z.number().int(),
  /** Relative link to the next page; null (or absent) on the last page. */
  nextPage: z.string().nullish(),
  previousPage: z.string().nullish(),
  /** Relative link to the unpaged list; may be an empty string. */
  all: z.string().optional(),
});
export type Pagination = z.infer<typeof PaginationSchema>;

/** Envelope of a single-object response (spec 2.1). */
export function envelope<T extends z.ZodType>(data: T) {
  return z.looseObject({ message: z.string(), data });
}

/** Envelope of a list response: `data` array plus pagination. */
export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.looseObject({ message: z.string(), data: z.array(item), pagination: PaginationSchema });
}

/** Owner object (spec 2.4). Metric responses add `name` and may carry only that. */
export const OwnerSchema = z.looseObject({
  ownerID: z.string().optional(),
  ownerType: z.string().optional(),
  ownerName: z.string().optional(),
  ownerEmail: z.string().optional(),
  name: z.string().optional(),
});
export type Owner = z.infer<typeof OwnerSchema>;

/** `page` and `limit` of every list operation (spec 8: defaults 1 and 10). */
export const ListParamsSchema = z.strictObject({
  page: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).optional(),
});
export type ListParams = z.infer<typeof ListParamsSchema>;

/** A path parameter: any non-empty string (it is encoded, never trusted). */
export const PathParamSchema = z.string().min(1);

/** `{name, type}` metric references used by teams and experiments. */
export const MetricRefSchema = z.looseObject({ name: z.string(), type: z.string() });
