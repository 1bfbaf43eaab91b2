/**
 * Logged event records (spec 2.12): timestamps are strings of epoch milliseconds.
 *
 * Client SDKs write every field, and spec 2.13 leaves their nullability open: a numeric `value`
 * (`logEvent('purchase', 12.5)`), a null `userID` or metadata that is a list must not make the
 * whole page unreadable (the sweeper would stop at it on every run, and no event after it would
 * ever be handed out). So the record is read leniently: a number or boolean becomes its text,
 * anything else that is not a string is absent (`name` and `timestamp` empty: no rule or
 * exposure reads them), and metadata that is not an object is absent.
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
const clientObject = () =>
  z.pipe(
    z.unknown(),
    z.transform((value: unknown) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined,
    ),
  );

export const eventRecordSchema = once(() =>
  z.looseObject({
    timestamp: requiredText(),
    name: requiredText(),
    source: z.optional(clientText()),
    value: z.optional(clientText()),
    userID: z.optional(clientText()),
    metadata: z.optional(clientObject()),
  }),
);
export type EventRecord = z.infer<ReturnType<typeof eventRecordSchema>>;
