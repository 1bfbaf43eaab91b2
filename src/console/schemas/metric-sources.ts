/** Metric sources, a.k.a. qualifying events (spec 2.7, 4.4). */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';
import { ownerSchema } from './common.js';

export const idTypeMappingSchema = /* @__PURE__ */ once(() =>
  z.looseObject({ serviceUnitID: z.nullish(z.string()), column: z.nullish(z.string()) }),
);
export const customFieldMappingSchema = /* @__PURE__ */ once(() =>
  z.looseObject({ key: z.nullish(z.string()), formula: z.nullish(z.string()) }),
);

export const metricSourceSchema = /* @__PURE__ */ once(() =>
  z.looseObject({
    name: z.string(),
    sql: z.nullish(z.string()),
    timestampColumn: z.nullish(z.string()),
    idTypeMapping: z.nullish(z.array(idTypeMappingSchema())),
    description: z.nullish(z.string()),
    tags: z.nullish(z.array(z.string())),
    timestampAsDay: z.nullish(z.boolean()),
    sourceType: z.nullish(z.string()),
    tableName: z.nullish(z.string()),
    datePartitionColumn: z.nullish(z.string()),
    customFieldMapping: z.nullish(z.array(customFieldMappingSchema())),
    isReadOnly: z.nullish(z.boolean()),
    isVerified: z.nullish(z.boolean()),
    owner: z.nullish(ownerSchema()),
    team: z.nullish(z.string()),
    teamID: z.nullish(z.string()),
  }),
);
export type MetricSource = z.infer<ReturnType<typeof metricSourceSchema>>;

/** The create response: a metric source (the spec lists a subset of its fields). */
export const qualifyingEventSchema = metricSourceSchema;
export type QualifyingEvent = MetricSource;

/** Create body: a metric source; `name`, `sql`, `timestampColumn`, `idTypeMapping` required. */
export const createQualifyingEventSchema = /* @__PURE__ */ once(() =>
  z.strictObject({
    name: z.string().check(z.minLength(1)),
    sql: z.string().check(z.minLength(1)),
    timestampColumn: z.string().check(z.minLength(1)),
    idTypeMapping: z.array(z.strictObject({ serviceUnitID: z.string(), column: z.string() })),
    description: z.optional(z.string()),
    tags: z.optional(z.array(z.string())),
    timestampAsDay: z.optional(z.boolean()),
    sourceType: z.optional(z.enum(['table', 'query'])),
    tableName: z.optional(z.string()),
    datePartitionColumn: z.optional(z.string()),
    customFieldMapping: z.optional(z.array(z.strictObject({ key: z.string(), formula: z.string() }))),
    isReadOnly: z.optional(z.boolean()),
    isVerified: z.optional(z.boolean()),
    owner: z.optional(ownerSchema()),
    team: z.optional(z.nullable(z.string())),
    teamID: z.optional(z.nullable(z.string())),
    /** Validate without persisting. */
    dryRun: z.optional(z.boolean()),
  }),
);
export type CreateQualifyingEvent = z.input<ReturnType<typeof createQualifyingEventSchema>>;
