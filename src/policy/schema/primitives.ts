/**
 * What every section of the policy schema is built with (src/policy/schema.ts composes them):
 * descriptions for the generated JSON Schema, the glob type, and the time-zone check.
 */
import '../../util/zod-locale.js';
import * as z from 'zod/mini';

/**
 * A description for the generated JSON Schema, registered on the schema itself: unlike
 * `.check(z.describe(...))` this clones nothing and adds no check, which keeps building the
 * schema short (each zod object built costs); toJSONSchema reads the same registry.
 */
export function described<T extends z.ZodMiniType>(schema: T, description: string): T {
  (schema as z.ZodMiniType).register(z.globalRegistry, { description });
  return schema;
}

/**
 * JSON Schema keywords for a rule a zod refinement checks (toJSONSchema cannot read a refinement),
 * so that editors refuse what the loader refuses; merged with the schema's description.
 */
export function withJsonSchema<T extends z.ZodMiniType>(schema: T, keywords: Record<string, unknown>): T {
  z.globalRegistry.add(schema as z.ZodMiniType, {
    ...z.globalRegistry.get(schema as z.ZodMiniType),
    ...keywords,
  });
  return schema;
}

/**
 * Whether `zone` is an IANA time zone this runtime knows. The canonical names come from
 * `Intl.supportedValuesOf` (a few ms); building a `DateTimeFormat` with a zone loads ICU's
 * zone data (35–60 ms at a cold start), so it is only the fallback for what the list leaves
 * out but Intl accepts: aliases (`UTC`, `Etc/UTC`, `US/Pacific`, `Asia/Kolkata` on older ICU)
 * and other spellings of a case-insensitive name. The answer is the same as the fallback's alone.
 */
let canonicalZones: ReadonlySet<string> | undefined;
export function isTimeZone(zone: string): boolean {
  canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (canonicalZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The schemas several sections share: one instance each, so each is described once. */
export function buildPrimitives() {
  const Glob = described(
    z.string().check(z.minLength(1), z.maxLength(200)),
    '`*` matches any run of characters; anything else matches itself',
  );
  const GlobList = z.array(Glob).check(z.minLength(1));
  return { Glob, GlobList };
}

export type Primitives = ReturnType<typeof buildPrimitives>;
