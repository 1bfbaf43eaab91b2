/**
 * `*` globs, as the policy file and event rules use them: `*` matches any run of characters
 * (including none); every other character matches itself. Matched without a regex: event fields
 * are client-written and unbounded, and a backtracking `^.*a.*a.*b$` took cubic time on a value
 * of many `a`s (a 4,000-character field against `*a*a*b` held the sweeper for seconds, every run).
 * Here each literal part between stars is found once, leftmost first (which is enough: any later
 * place of a part leaves less room to the parts after it), so a match costs one scan per part.
 */
import { foldConfigName } from './config-name.js';

/** The literal parts of a pattern between its stars (cached: the same few patterns match every event). */
const cache = new Map<string, readonly string[]>();

function partsOf(pattern: string): readonly string[] {
  let parts = cache.get(pattern);
  if (!parts) {
    parts = pattern.split('*');
    cache.set(pattern, parts);
  }
  return parts;
}

/** True when `value` matches the `*` glob `pattern`. */
export function globMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  if (!pattern.includes('*')) return pattern === value;
  const parts = partsOf(pattern);
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  // The head and the tail are anchored, and may not overlap.
  if (value.length < first.length + last.length) return false;
  if (!value.startsWith(first) || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (let index = 1; index < parts.length - 1; index++) {
    const part = parts[index] as string;
    const found = value.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

/**
 * The first of `protect` (a policy's config-id globs) that names `configId`, whatever the case of
 * either: the platform evaluates config names whatever their case (the sweeper counts an exposure
 * of `New_Checkout_Copy` as a use of `new_checkout_copy`), so a protection written `checkout_*`
 * must hold for the `Checkout_Flow` a client SDK logged too, and `straße_*` for `STRASSE_BANNER`. One home for the sweeper's skip and
 * the worker's deny.
 */
export function protectingGlobOf(protect: readonly string[], configId: string): string | undefined {
  const folded = foldConfigName(configId);
  // A glob folds as a name does (src/util/config-name.ts); its `*` stays a star.
  return protect.find((glob) => globMatch(foldConfigName(glob), folded));
}

/** True when `value` matches at least one of `patterns`. */
export function matchesAny(patterns: readonly string[], value: string): boolean {
  return patterns.some((pattern) => globMatch(pattern, value));
}
