/**
 * Building request paths from templates. Every interpolated value is one path segment,
 * encoded with encodeURIComponent, so an id such as `../roles/x` or `a/b?c=d` can never
 * change which endpoint is called or add a query string.
 */

/**
 * Tagged template that encodes every interpolated value as a single path segment.
 *
 * @example
 * path`/console/v1/roles/${'../admin'}` // '/console/v1/roles/..%2Fadmin'
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0] ?? '';
  // A plain loop (no callback per call): this runs on every request.
  for (let index = 0; index < values.length; index++) {
    out += encodeSegment(values[index] as string | number) + (strings[index + 1] ?? '');
  }
  return out;
}

/**
 * One segment. `.` and `..` are refused: WHATWG URL parsing (and so fetch) collapses them
 * even when percent-encoded (`%2E%2E`), so no encoding keeps them a segment.
 */
export function encodeSegment(value: string | number): string {
  const text = String(value);
  if (!isSafeSegment(text)) throw new TypeError(`a path parameter cannot be ${JSON.stringify(text)}`);
  return unreserved(text) ? text : encodeURIComponent(text);
}

/**
 * True when encodeURIComponent would give `text` back as it is: letters, digits, `-`, `_`, `.`, `~`
 * only (most ids). A scan, where encodeURIComponent is a call into the runtime on every request.
 */
function unreserved(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
    if (!(letter || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95 || c === 126)) return false;
  }
  return true;
}

/**
 * False for values that cannot be one path segment: empty, `.` and `..`, and text with a lone
 * surrogate (half of a UTF-16 pair), which no URL can encode (encodeURIComponent throws).
 */
export function isSafeSegment(text: string): boolean {
  // isWellFormed (Node 20+, ES2024): false exactly when a lone surrogate is there (a scan, where the
  // `/\p{Cs}/u` it replaces ran a regex on every request).
  return text !== '' && text !== '.' && text !== '..' && (text as WellFormed).isWellFormed();
}

/** ES2024's String.prototype.isWellFormed, which this project's TypeScript lib (ES2023) does not declare. */
type WellFormed = string & { isWellFormed(): boolean };

/** Absolute URL of a call: `path` under `baseUrl` (or an absolute URL: pagination links), with `query` set. */
export function urlOf(
  baseUrl: string,
  path: string,
  query?: Record<string, string | number | undefined>,
): string {
  // The common case (an encoded path, no query) needs no URL parsing: it is on every request.
  if (query === undefined && path.charCodeAt(0) === 47 /* '/' */) return baseUrl + path;
  const absolute = /^https?:\/\//i.test(path);
  if (!absolute && query === undefined) return baseUrl + path;
  const url = new URL(absolute ? path : baseUrl + path);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.href;
}
