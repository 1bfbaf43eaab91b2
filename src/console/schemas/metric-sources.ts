/** Metric sources, a.k.a. qualifying events (spec 2.7, 4.4). */
import { z } from 'zod';
import { OwnerSchema } from './common.js';

export const IdTypeMappingSchema = z.looseObject({ serviceUnitID: z.string(), column: z.string() });
export const CustomFieldMappingSchema = z.looseObject({ key: z.string(), formula: z.string() });

export const MetricSourceSchema = z.looseObject({
  name: z.string(),
  sql: z.string().optional(),
  timestampColumn: z.string().optional(),
  idTypeMapping: z.array(IdTypeMappingSchema).optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  timestampAsDay: z.boolean().optional(),
  sourceType: z.string().optional(),
  tableName: z.string().optional(),
  datePartitionColumn: z.string().optional(),
  customFieldMapping: z.array(CustomFieldMappingSchema).optional(),
  isReadOnly: z.boolean().optional(),
  isVerified: z.boolean().optional(),
  owner: OwnerSchema.optional(),
  team: z.string().nullish(),
  teamID: z.string().nullish(),
});
export type MetricSource = z.infer<typeof MetricSourceSchema>;

/** The create response: a metric source (the spec lists a subset of its fields). */
export const QualifyingEventSchema = MetricSourceSchema;
export type QualifyingEvent = MetricSource;

/** Create body: a metric source; `name`, `sql`, `timestampColumn`, `idTypeMapping` required. */
export const CreateQualifyingEventSchema = z.strictObject({
  name: z.string().min(1),
  sql: z.string().min(1),
  timestampColumn: z.string().min(1),
  idTypeMapping: z.array(z.strictObject({ serviceUnitID: z.string(), column: z.string() })),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  timestampAsDay: z.boolean().optional(),
  sourceType: z.enum(['table', 'query']).optional(),
  tableName: z.string().optional(),
  datePartitionColumn: z.string().optional(),
  customFieldMapping: z.array(z.strictObject({ key: z.string(), formula: z.string() })).optional(),
  isReadOnly: z.boolean().optional(),
  isVerified: z.boolean().optional(),
  owner: OwnerSchema.optional(),
  team: z.string().nullable().optional(),
  teamID: z.string().nullable().optional(),
  /** Validate without persisting. */
  dryRun: z.boolean().optional(),
});
export type CreateQualifyingEvent = z.input<typeof CreateQualifyingEventSchema>;
