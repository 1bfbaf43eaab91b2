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
/** `exact`: true exactly when zod accepts (so a union may go on to its next option on false). */
interface Compiled {
  check: Check;
  exact: boolean;
  /** How the schema takes an absent key of an object: zod's `optin`/`optout` both `optional`. */
  optional: boolean;
}

interface Internals {
  def: {
    type: string;
    checks?: Array<{ _zod: { def: Record<string, unknown> } }>;
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
    check = compile(schema as unknown as Schema)?.check ?? null;
    compiledBySchema.set(schema, check);
  }
  return check ?? undefined;
}

const always: Check = () => true;
const isString: Check = (value) => typeof value === 'string';
const isBoolean: Check = (value) => typeof value === 'boolean';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const isSafeInteger: Check = (value) => Number.isSafeInteger(value);

function compile(schema: Schema): Compiled | undefined {
  const zod = schema._zod;
  const def = zod.def;
  if (def.coerce) return undefined;
  switch (def.type) {
    case 'string':
      return withChecks(def.checks, isString, 'string');
    case 'number':
      return withChecks(def.checks, isNumber, 'number');
    case 'boolean':
      return withChecks(def.checks, isBoolean, 'boolean');
    case 'unknown':
      return def.checks?.length ? undefined : { check: always, exact: true, optional: false };
    case 'literal':
    case 'enum': {
      const values = zod.values;
      if (!values || def.checks?.length) return undefined;
      return { check: (value) => values.has(value), exact: true, optional: false };
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
  if (!checks?.length) return { check: base, exact: true, optional: false };
  const all: Check[] = [base];
  for (const check of checks) {
    const def = check._zod.def;
    if (def.check === 'number_format' && def.format === 'safeint' && type === 'number')
      all.push(isSafeInteger);
    else if (def.check === 'min_length' && typeof def.minimum === 'number' && type === 'string') {
      // zod counts code points: twice the floor in UTF-16 units is always enough; less, zod decides.
      const floor = def.minimum * 2;
      all.push((value) => (value as string).length >= floor);
    } else return undefined;
  }
  return { check: (value) => all.every((one) => one(value)), exact: false, optional: false };
}

function wrapper(zod: Internals): Compiled | undefined {
  const inner = zod.def.innerType;
  // A defaulted inner substitutes a value for absence: not the value as it came.
  if (!inner || inner._zod.optin === 'defaulted') return undefined;
  const compiled = compile(inner);
  if (!compiled) return undefined;
  const { check, exact } = compiled;
  const optional = zod.optin === 'optional' && zod.optout === 'optional';
  if (zod.def.type === 'nullable')
    return { check: (value) => value === null || check(value), exact, optional: compiled.optional };
  return { check: (value) => value === undefined || check(value), exact, optional };
}

function array(def: Internals['def']): Compiled | undefined {
  if (def.checks?.length || !def.element) return undefined;
  const element = compile(def.element);
  if (!element) return undefined;
  const check = element.check;
  return {
    check: (value) => {
      if (!Array.isArray(value)) return false;
      for (let i = 0; i < value.length; i++) if (!check(value[i])) return false;
      return true;
    },
    exact: false,
    optional: false,
  };
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
  const fields: Array<{ key: string; check: Check; optional: boolean }> = [];
  for (const key of keys) {
    const compiled = compile(def.shape[key] as Schema);
    if (!compiled) return undefined;
    fields.push({ key, check: compiled.check, optional: compiled.optional });
  }
  const known = new Set(keys);
  return {
    check: (value) => {
      // An own `__proto__` (JSON.parse makes one) is left out of zod's copy: zod decides.
      if (!isObject(value) || hasOwn.call(value, '__proto__')) return false;
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i] as (typeof fields)[number];
        if (field.key in value) {
          if (!field.check(value[field.key])) return false;
        } else if (!field.optional) return false;
      }
      if (strict) for (const key in value) if (!known.has(key)) return false;
      return true;
    },
    exact: false,
    optional: false,
  };
}

/** `record(string, unknown)` only: every own key kept with its value, as it came. */
function record(def: Internals['def']): Compiled | undefined {
  const key = def.keyType?._zod.def;
  const value = def.valueType?._zod.def;
  if (def.checks?.length || def.mode !== undefined || key?.type !== 'string' || key.checks?.length)
    return undefined;
  if (value?.type !== 'unknown' || value.checks?.length) return undefined;
  return {
    // zod wants a plain object (an own `constructor` is the only way JSON could bend that test).
    check: (input) =>
      isObject(input) && !hasOwn.call(input, '__proto__') && !hasOwn.call(input, 'constructor'),
    exact: false,
    optional: false,
  };
}

/** zod takes the first option that succeeds: an option may be passed over only when its "no" is exact. */
function union(def: Internals['def']): Compiled | undefined {
  if (def.checks?.length || def.inclusive === false || !def.options?.length) return undefined;
  const options: Compiled[] = [];
  for (const option of def.options) {
    const compiled = compile(option);
    if (!compiled) return undefined;
    options.push(compiled);
  }
  return {
    check: (value) => {
      for (const option of options) {
        if (option.check(value)) return true;
        if (!option.exact) return false;
      }
      return false;
    },
    exact: options.every((option) => option.exact),
    optional: false,
  };
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
      byValue.set(value, compiled.check);
    }
  }
  return {
    check: (value) => {
      if (!isObject(value)) return false;
      const check = byValue.get(value[discriminator]);
      return check?.(value) === true;
    },
    exact: false,
    optional: false,
  };
}
