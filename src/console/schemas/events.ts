/**
 * Logged event records (spec 2.12): timestamps are strings of epoch milliseconds.
 *
 * Client SDKs write every field, and spec 2.13 leaves their nullability open: a numeric `value`
 * (`logEvent('purchase', 12.5)`), a null `userID` or metadata that is a list must not make the
 * whole page unreadable (the sweeper would stop at it on every run, and no event after it would
 * ever be handed out). So the record is read leniently: a number or boolean becomes its text,
 * anything else that is not a string is absent (`name` and `timestamp` empty: no rule or
 * exposure reads them), and metadata that is not an object is absent. An element of `data` that
 * is not a record at all (`null`, a string, a number, a list) reads as an empty one, in its place:
 * pagination and counts stay right, and no rule or exposure reads it.
 */
import * as z from 'zod/mini';
import { once } from '../../util/once.js';

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

const clientText = () => z.pipe(z.unknown(), z.transform(text));
// An absent key too: a pipe from `unknown` alone is a required key of the object, and one record
// written without `timestamp` or `name` failed its whole page, on every run of the sweeper.
const requiredText = () =>
  z._default(
    z.pipe(
      z.unknown(),
      z.transform((value: unknown) => text(value) ?? ''),
    ),
    '',
  );
const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
const clientObject = () => z.pipe(z.unknown(), z.transform(asObject));

export const eventRecordSchema = /* @__PURE__ */ once(() =>
  z.pipe(
    // A null or non-object element failed its whole page, on every run of the sweeper.
    z.pipe(
      z.unknown(),
      z.transform((value: unknown) => asObject(value) ?? {}),
    ),
    z.looseObject({
      timestamp: requiredText(),
      name: requiredText(),
      source: z.optional(clientText()),
      value: z.optional(clientText()),
      userID: z.optional(clientText()),
      metadata: z.optional(clientObject()),
    }),
  ),
);
export type EventRecord = z.infer<ReturnType<typeof eventRecordSchema>>;

/**
 * True for a record with nothing an event rule or exposure can read: no timestamp, name, source,
 * user, value or metadata. It is what an element of `data` that is not a record reads as (above),
 * passed by in its place; readers count it, or a platform serving broken entries would make the
 * sweeper pass events by with a clean run (src/sweeper/page-reader.ts).
 */
export function unreadableEvent(
  record:
    | {
        timestamp?: string | undefined;
        name?: string | undefined;
        source?: string | undefined;
        value?: string | undefined;
        userID?: string | undefined;
        metadata?: Record<string, unknown> | undefined;
      }
    | null
    | undefined,
): boolean {
  if (!record || typeof record !== 'object') return true;
  const { timestamp, name, source, value, userID, metadata } = record;
  return (
    !timestamp && !name && source === undefined && value === undefined && userID === undefined && !metadata
  );
}
