/**
 * The Lambda adapter's stand-ins for a Request (event-request.ts) and a Response (lambda-reply.ts)
 * keep the few members the webhook reads as their own and take every other from a real Request or
 * Response, made the first time one is asked for: making either loads undici (event-headers.ts).
 */

/** The members Request and Response share for reading their body (the Fetch standard's Body), and `clone`. */
export const BODY_MEMBERS = [
  'body',
  'arrayBuffer',
  'blob',
  'bytes',
  'clone',
  'formData',
  'json',
  'text',
] as const;

/**
 * Defines each of `names` on `prototype` as a getter that reads it from `real(this)`, a method
 * bound to that real object. A member this Node's Request or Response lacks reads as undefined.
 */
export function readFromReal<T extends object>(
  prototype: T,
  names: readonly string[],
  real: (self: T) => object,
): void {
  for (const name of names) {
    Object.defineProperty(prototype, name, {
      configurable: true,
      get(this: T) {
        const made = real(this);
        const value: unknown = Reflect.get(made, name, made);
        return typeof value === 'function' ? value.bind(made) : value;
      },
    });
  }
}
