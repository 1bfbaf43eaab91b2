/** Logged event records (spec 2.12): timestamps are strings of epoch milliseconds. */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';

export const eventRecordSchema = once(() =>
  z.looseObject({
    timestamp: z.string(),
    name: z.string(),
    source: z.optional(z.string()),
    value: z.optional(z.string()),
    userID: z.optional(z.string()),
    metadata: z.optional(z.record(z.string(), z.unknown())),
  }),
);
export type EventRecord = z.infer<ReturnType<typeof eventRecordSchema>>;
