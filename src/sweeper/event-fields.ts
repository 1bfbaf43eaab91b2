/**
 * Reading a field of an event by the paths the policy uses: `name`, `source`, `userID`,
 * `value`, `timestamp`, and `metadata.<key>[.<key>…]` into nested metadata (or flat keys with
 * dots). Values are
 * turned into strings (numbers and booleans as written, objects as canonical JSON) so that
 * globs and templates work on every field alike; a missing field is `undefined`.
 */
import { EVENT_PATH, EVENT_TOP_LEVEL_FIELDS } from '../policy/event-paths.js';
import { canonicalJson } from './identity.js';
import type { EventLike } from './types.js';

export function eventField(event: EventLike, path: string): string | undefined {
  return stringify(eventValue(event, path));
}

/**
 * The value at `path` as the client wrote it (any JSON shape); `undefined` when missing, and for a
 * path that names no event field (`metadata.x.`, `metadata..x`): `policy check` says a template
 * placeholder like that is never filled, and checks no match for it, yet read here as a flat key
 * with its dots it filled a request with what a client logged under `"x."`.
 */
export function eventValue(event: EventLike, path: string): unknown {
  if (EVENT_TOP_LEVEL_FIELDS.has(path)) return (event as unknown as Record<string, unknown>)[path];
  if (!EVENT_PATH.test(path)) return undefined;
  return valueAt(event.metadata, path.slice('metadata.'.length).split('.'));
}

/**
 * The value at `keys` under `current`: a nested key first, else keys joined by their dots. SDKs
 * also log flat keys with dots (`{"release.phase": …}`), which a path can name no other way: read
 * nested only, a rule on one never matched, silently.
 */
function valueAt(current: unknown, keys: readonly string[]): unknown {
  if (keys.length === 0) return current;
  if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
  for (let take = 1; take <= keys.length; take++) {
    const key = keys.slice(0, take).join('.');
    if (!Object.hasOwn(current, key)) continue;
    const found = valueAt((current as Record<string, unknown>)[key], keys.slice(take));
    if (found !== undefined) return found;
  }
  return undefined;
}

function stringify(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return canonicalJson(value);
}
