/**
 * Headers for the Lambda adapter's requests and replies, made without Node's global `Headers`.
 * On Node the global `Headers`, `Request` and `Response` are lazy: the first use of any of them
 * loads undici, about a fifth of the webhook's first request after a cold start (~20 ms of ~110 ms
 * on this machine, `npm run bench -- first-request`), and nothing else on the webhook's path needs
 * it (its AWS and Slack calls go over node:http). `EventHeaders` is a Headers to everything that
 * reads or writes one (`get`, `has`, `set`, `append`, `delete`, `forEach`, iteration in name
 * order, `getSetCookie`), checks names and values as a Headers does (a TypeError for one it would
 * refuse: the adapter's 400), and can initialize a real Headers, Request or Response.
 */

/** A header name: an HTTP token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** HTTP whitespace a Headers strips from both ends of a value. */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
/** What a Headers refuses in a value: NUL, CR, LF, and anything that is not a byte (a ByteString). */
const REFUSED_IN_VALUE = /[\0\r\n]|[^\0-\u00ff]/;

function checkedName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`"${text}" is not a valid header name`);
  return text.toLowerCase();
}

function checkedValue(value: string): string {
  const text = String(value).replace(EDGE_WHITESPACE, '');
  if (REFUSED_IN_VALUE.test(text)) throw new TypeError('a header value holds a character no Headers takes');
  return text;
}

export class EventHeaders {
  /** Values by lowercased name: one joined value each, except `set-cookie`, kept apart (as a Headers keeps it). */
  readonly #values = new Map<string, string>();
  #cookies: string[] = [];

  constructor(init: Record<string, string> = {}) {
    for (const name in init) this.append(name, init[name] as string);
  }

  get(name: string): string | null {
    const key = checkedName(name);
    if (key === 'set-cookie') return this.#cookies.length > 0 ? this.#cookies.join(', ') : null;
    return this.#values.get(key) ?? null;
  }

  has(name: string): boolean {
    const key = checkedName(name);
    return key === 'set-cookie' ? this.#cookies.length > 0 : this.#values.has(key);
  }

  set(name: string, value: string): void {
    const key = checkedName(name);
    const text = checkedValue(value);
    if (key === 'set-cookie') this.#cookies = [text];
    else this.#values.set(key, text);
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const text = checkedValue(value);
    if (key === 'set-cookie') this.#cookies.push(text);
    else {
      const before = this.#values.get(key);
      this.#values.set(key, before === undefined ? text : `${before}, ${text}`);
    }
  }

  delete(name: string): void {
    const key = checkedName(name);
    if (key === 'set-cookie') this.#cookies = [];
    else this.#values.delete(key);
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  /** In name order, each `set-cookie` on its own, as a Headers iterates. */
  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#values.keys()];
    if (this.#cookies.length > 0) names.push('set-cookie');
    for (const name of names.sort()) {
      if (name === 'set-cookie') for (const cookie of this.#cookies) yield [name, cookie];
      else yield [name, this.#values.get(name) as string];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(callback: (value: string, name: string, headers: this) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
