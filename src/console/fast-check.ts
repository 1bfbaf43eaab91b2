/**
 * A quick yes for a response that zod would accept unchanged. `fastCheckOf(schema)` builds, once
 * per schema, a predicate over a freshly parsed JSON value: true only when `schema.safeParse`
 * would succeed AND its output would hold exactly the value's own data (no key stripped, none
 * defaulted or transformed), so the caller may keep the value as it is. False means "not known":
 * the caller runs zod, which gives the verdict and every issue with its path. A schema holding
 * anything this module does not know (a pipe, a transform, a default, a regex check…) gets no
 * predicate (undefined): zod reads all of it.
 *
 * Why: zod validates by building a result payload per field and a copy per object; on a GET
 * against a nearby server that was a third of the client's own time (bench/client.bench.ts).
 * The one difference from zod's output is key order (zod puts the schema's keys first); the
 * data, every field's value and every unknown field kept by a loose object are the same.
 * test/console/fast-check.test.ts holds the predicate to that, against zod, on generated values.
 */
import type * as z from 'zod/mini';

type Check = (value: unknown) => boolean;
/**
 * `base` checks the value itself; `nulls` says what else passes as it is (1: null, 2: undefined, 3:
 * both), so that `nullish(string())` is one shared function (`checkOf`), not three closures deep.
 * `exact`: true exactly when zod accepts (so a union may go on to its next option on false).
 * `optional`: how an object takes the key absent: zod's `optin` and `optout` both `optional`.
 */
interface Compiled {
  base: Check;
  nulls: number;
  exact: boolean;
  optional: boolean;
}

interface Internals {
  def: {
    type: string;
    checks?: Array<{ _zod: { def: Record<string, unknown> } }>;
    /** Set when the schema is itself a check (`z.int()`, `z.email()`…), run by zod beside its type. */
    check?: string;
    format?: string;
    coerce?: boolean;
    innerType?: Schema;
    element?: Schema;
    shape?: Record<string, Schema>;
    catchall?: Schema;
    keyType?: Schema;
    valueType?: Schema;
    options?: Schema[];
    discriminator?: string;
    inclusive?: boolean;
    unionFallback?: boolean;
    mode?: string;
  };
  optin?: string;
  optout?: string;
  values?: Set<unknown>;
  propValues?: Record<string, Set<unknown>>;
}
interface Schema {
  _zod: Internals;
}

const compiledBySchema = new WeakMap<object, Check | null>();

/** The predicate of `schema` (built on first use, then kept), or undefined when zod must read it all. */
export function fastCheckOf(schema: z.ZodMiniType): Check | undefined {
  let check = compiledBySchema.get(schema);
  if (check === undefined) {
    const compiled = compile(schema as unknown as Schema);
    check = compiled ? checkOf(compiled) : null;
    compiledBySchema.set(schema, check);
  }
  return check ?? undefined;
}

const always: Check = () => true;
const isString: Check = (value) => typeof value === 'string';
const isBoolean: Check = (value) => typeof value === 'boolean';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const isInteger: Check = (value) => Number.isSafeInteger(value);

/**
 * The leaves' checks with null, undefined or both let through, made once and shared by every
 * schema: a response's check then calls a handful of functions, not a closure per field.
 */
const SHARED = new Map<Check, Check[]>(
  [isString, isBoolean, isNumber, isInteger].map((base) => [
    base,
    [
      base,
      (value) => value === null || base(value),
      (value) => value === undefined || base(value),
      (value) => value == null || base(value),
    ],
  ]),
);

/** The one function that checks `compiled` with what else it lets through. */
function checkOf({ base, nulls }: Compiled): Check {
  if (nulls === 0 || base === always) return base;
  const shared = SHARED.get(base)?.[nulls];
  if (shared) return shared;
  if (nulls === 1) return (value) => value === null || base(value);
  if (nulls === 2) return (value) => value === undefined || base(value);
  return (value) => value == null || base(value);
}

const plain = (base: Check, exact = true): Compiled => ({ base, nulls: 0, exact, optional: false });

function compile(schema: Schema): Compiled | undefined {
  const zod = schema._zod;
  const def = zod.def;
  if (def.coerce) return undefined;
  // A schema that is itself a check (`z.int()`, `z.email()`…): only `z.int()`'s meaning is known here.
  if (def.check !== undefined)
    return def.type === 'number' &&
      def.check === 'number_format' &&
      def.format === 'safeint' &&
      !def.checks?.length
      ? plain(isInteger, false)
      : undefined;
  switch (def.type) {
    case 'string':
      return withChecks(def.checks, isString, 'string');
    case 'number':
      return withChecks(def.checks, isNumber, 'number');
    case 'boolean':
      return withChecks(def.checks, isBoolean, 'boolean');
    case 'unknown':
      return def.checks?.length ? undefined : plain(always);
    case 'literal':
    case 'enum': {
      const values = zod.values;
      if (!values || def.checks?.length) return undefined;
      return plain((value) => values.has(value));
    }
    case 'optional':
    case 'nullable':
      return wrapper(zod);
    case 'array':
      return array(def);
    case 'object':
      return object(def);
    case 'record':
      return record(def);
    case 'union':
      return def.discriminator === undefined ? union(def) : discriminated(def);
    default:
      return undefined;
  }
}

/** A leaf's own checks: only those whose meaning is known here; any other, no predicate. */
function withChecks(checks: Internals['def']['checks'], base: Check, type: string): Compiled | undefined {
  if (!checks?.length) return plain(base);
  const [only, ...more] = checks;
  const def = only?._zod.def;
  if (more.length || !def) return undefined;
  // Number.isSafeInteger is z.int()'s test whole: a number, whole, within ±(2^53 - 1).
  if (def.check === 'number_format' && def.format === 'safeint' && type === 'number')
    return plain(isInteger, false);
  if (def.check === 'min_length' && typeof def.minimum === 'number' && type === 'string') {
    // zod counts code points: twice the floor in UTF-16 units is always enough; less, zod decides.
    const floor = def.minimum * 2;
    return plain((value) => typeof value === 'string' && value.length >= floor, false);
  }
  return undefined;
}

function wrapper(zod: Internals): Compiled | undefined {
  const inner = zod.def.innerType;
  // The wrapper's own checks (`.check(z.refine(…))` on an optional or nullable) are zod's.
  if (zod.def.checks?.length) return undefined;
  // A defaulted inner substitutes a value for absence: not the value as it came.
  if (!inner || inner._zod.optin === 'defaulted') return undefined;
  const compiled = compile(inner);
  if (!compiled) return undefined;
  if (zod.def.type === 'nullable') return { ...compiled, nulls: compiled.nulls | 1 };
  const optional = zod.optin === 'optional' && zod.optout === 'optional';
  return { ...compiled, nulls: compiled.nulls | 2, optional };
}

function array(def: Internals['def']): Compiled | undefined {
  if (def.checks?.length || !def.element) return undefined;
  const element = compile(def.element);
  if (!element) return undefined;
  const check = checkOf(element);
  return plain((value) => {
    if (!Array.isArray(value)) return false;
    for (let i = 0; i < value.length; i++) if (!check(value[i])) return false;
    return true;
  }, false);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const hasOwn = Object.prototype.hasOwnProperty;

function object(def: Internals['def']): Compiled | undefined {
  if (def.checks?.length || !def.shape) return undefined;
  const catchall = def.catchall?._zod.def.type;
  // Loose (unknown fields kept as they are) or strict (refused); a stripping object would copy less.
  if (catchall !== 'unknown' && catchall !== 'never') return undefined;
  const strict = catchall === 'never';
  const keys = Object.keys(def.shape);
  // A key every object inherits (`constructor`, `toString`…) would be "present" to zod in any value.
  if (keys.some((key) => key in Object.prototype) || Object.getOwnPropertySymbols(def.shape).length)
    return undefined;
  const checks: Check[] = [];
  const required: boolean[] = [];
  const index = new Map<string, number>();
  for (const key of keys) {
    const compiled = compile(def.shape[key] as Schema);
    if (!compiled) return undefined;
    index.set(key, checks.length);
    checks.push(checkOf(compiled));
    required.push(!compiled.optional);
  }
  const requiredCount = required.filter(Boolean).length;
  return plain((value) => {
    if (!isObject(value)) return false;
    // The value's own keys, each read where it lies (no lookup of the schema's names in it).
    let seen = 0;
    for (const key in value) {
      const at = index.get(key);
      // Unknown: kept by a loose object, refused by a strict one; an own `__proto__` (JSON.parse
      // makes one) is left out of zod's copy: zod decides.
      if (at === undefined) {
        if (strict || key === '__proto__') return false;
        continue;
      }
      if (!(checks[at] as Check)(value[key])) return false;
      if (required[at]) seen++;
    }
    // Every required key was there (an optional one may be absent).
    return seen === requiredCount;
  }, false);
}

/** `record(string, unknown)` only: every own key kept with its value, as it came. */
function record(def: Internals['def']): Compiled | undefined {
  const key = def.keyType?._zod.def;
  const value = def.valueType?._zod.def;
  if (def.checks?.length || def.mode !== undefined || key?.type !== 'string' || key.checks?.length)
    return undefined;
  if (value?.type !== 'unknown' || value.checks?.length) return undefined;
  // zod wants a plain object (an own `constructor` is the only way JSON could bend that test).
  return plain(
    (input) => isObject(input) && !hasOwn.call(input, '__proto__') && !hasOwn.call(input, 'constructor'),
    false,
  );
}

/** zod takes the first option that succeeds: an option may be passed over only when its "no" is exact. */
function union(def: Internals['def']): Compiled | undefined {
  if (def.checks?.length || def.inclusive === false || !def.options?.length) return undefined;
  const options: Array<{ check: Check; exact: boolean }> = [];
  for (const option of def.options) {
    const compiled = compile(option);
    if (!compiled) return undefined;
    options.push({ check: checkOf(compiled), exact: compiled.exact });
  }
  const check: Check = (value) => {
    for (const option of options) {
      if (option.check(value)) return true;
      if (!option.exact) return false;
    }
    return false;
  };
  return plain(
    check,
    options.every((option) => option.exact),
  );
}

/** zod reads the one option the discriminator's value names; a value naming none is zod's to refuse. */
function discriminated(def: Internals['def']): Compiled | undefined {
  const discriminator = def.discriminator as string;
  if (def.checks?.length || !def.options?.length) return undefined;
  const byValue = new Map<unknown, Check>();
  for (const option of def.options) {
    const values = option._zod.propValues?.[discriminator];
    const compiled = compile(option);
    if (!values || !compiled) return undefined;
    for (const value of values) {
      if (value === undefined || byValue.has(value)) return undefined;
      byValue.set(value, checkOf(compiled));
    }
  }
  return plain((value) => {
    if (!isObject(value)) return false;
    return byValue.get(value[discriminator])?.(value) === true;
  }, false);
}
