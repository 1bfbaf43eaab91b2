/**
 * Response schemas, compiled by zod once they are hot. Every platform response is validated
 * with its zod schema; `z.compile` (zod ≥ 4.5) gives a clone of a schema that checks valid input
 * with straight-line generated code and hands invalid input to the schema's own parser, so
 * results and issues are zod's own either way (test/console/hot-schema.test.ts compares both on
 * every response schema). On the sandbox's segment body that is a few µs less per request.
 *
 * Compiling costs 0.3–10 ms per schema (an experiment's is the largest), so a cold process does
 * not pay it on its first requests (a Lambda's first invocation): a schema is compiled on its
 * COMPILE_AFTER-th parse, once it has shown it is used often enough to repay it.
 */
import * as z from 'zod/mini';

/** Parses by the runtime parser before a schema is compiled. */
export const COMPILE_AFTER = 256;

interface Tier {
  uses: number;
  schema: z.ZodMiniType;
}

const tiers = new WeakMap<z.ZodMiniType, Tier>();

/** The schema to parse a response with this time: `schema` itself, or its compiled clone once hot. */
export function hot<T>(schema: z.ZodMiniType<T>): z.ZodMiniType<T> {
  const tier = tiers.get(schema);
  if (tier === undefined) {
    tiers.set(schema, { uses: 1, schema });
    return schema;
  }
  if (tier.uses < COMPILE_AFTER && ++tier.uses === COMPILE_AFTER) tier.schema = compiled(schema);
  return tier.schema as z.ZodMiniType<T>;
}

/** zod's compiled clone; the schema itself where zod cannot compile it (it says it never throws: kept safe anyway). */
export function compiled<S extends z.ZodMiniType>(schema: S): S {
  try {
    return z.compile(schema);
  } catch {
    return schema;
  }
}
