/** Logged event records (spec 2.12): timestamps are strings of epoch milliseconds. */
import { z } from 'zod';

export const EventRecordSchema = z.looseObject({
  timestamp: z.string(),
  name: z.string(),
  source: z.string().optional(),
  value: z.string().optional(),
  userID: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type EventRecord = z.infer<typeof EventRecordSchema>;
