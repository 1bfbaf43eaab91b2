/** Metric sources, a.k.a. qualifying events (spec 2.7, 4.4). */
import * as z from 'zod/mini';
import { OwnerSchema } from './common.js';

export const IdTypeMappingSchema = z.lazy(() =>
  z.looseObject({ serviceUnitID: z.string(), column: z.string() }),
);
export const CustomFieldMappingSchema = z.lazy(() => z.looseObject({ key: z.string(), formula: z.string() }));

export const MetricSourceSchema = z.lazy(() =>
  z.looseObject({
    name: z.string(),
    sql: z.optional(z.string()),
    timestampColumn: z.optional(z.string()),
    idTypeMapping: z.optional(z.array(IdTypeMappingSchema)),
    description: z.optional(z.string()),
    tags: z.optional(z.array(z.string())),
    timestampAsDay: z.optional(z.boolean()),
    sourceType: z.optional(z.string()),
    tableName: z.optional(z.string()),
    datePartitionColumn: z.optional(z.string()),
    customFieldMapping: z.optional(z.array(CustomFieldMappingSchema)),
    isReadOnly: z.optional(z.boolean()),
    isVerified: z.optional(z.boolean()),
    owner: z.optional(OwnerSchema),
    team: z.nullish(z.string()),
    teamID: z.nullish(z.string()),
  }),
);
export type MetricSource = z.infer<typeof MetricSourceSchema>;

/** The create response: a metric source (the spec lists a subset of its fields). */
export const QualifyingEventSchema = z.lazy(() => MetricSourceSchema);
export type QualifyingEvent = MetricSource;

/** Create body: a metric source; `name`, `sql`, `timestampColumn`, `idTypeMapping` required. */
export const CreateQualifyingEventSchema = z.lazy(() =>
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
    owner: z.optional(OwnerSchema),
    team: z.optional(z.nullable(z.string())),
    teamID: z.optional(z.nullable(z.string())),
    /** Validate without persisting. */
    dryRun: z.optional(z.boolean()),
  }),
);
export type CreateQualifyingEvent = z.input<typeof CreateQualifyingEventSchema>;
