/**
 * `*` globs, as the policy file and event rules use them: `*` matches any run of characters
 * (including none); every other character matches itself. Compiled patterns are cached
 * because the same few patterns are matched against every request and event.
 */

const cache = new Map<string, RegExp>();

function compile(pattern: string): RegExp {
  let regex = cache.get(pattern);
  if (!regex) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    regex = new RegExp(`^${body}$`, 's');
    cache.set(pattern, regex);
  }
  return regex;
}

/** True when `value` matches the `*` glob `pattern`. */
export function globMatch(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  if (!pattern.includes('*')) return pattern === value;
  return compile(pattern).test(value);
}

/**
 * The first of `protect` (a policy's config-id globs) that names `configId`, whatever the case of
 * either: the platform evaluates config names whatever their case (the sweeper counts an exposure
 * of `New_Checkout_Copy` as a use of `new_checkout_copy`), so a protection written `checkout_*`
 * must hold for the `Checkout_Flow` a client SDK logged too. One home for the sweeper's skip and
 * the worker's deny.
 */
export function protectingGlobOf(protect: readonly string[], configId: string): string | undefined {
  const folded = configId.toLowerCase();
  return protect.find((glob) => globMatch(glob.toLowerCase(), folded));
}

/** True when `value` matches at least one of `patterns`. */
export function matchesAny(patterns: readonly string[], value: string): boolean {
  return patterns.some((pattern) => globMatch(pattern, value));
}
