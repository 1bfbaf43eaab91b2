/**
 * The reply a handler makes under the Lambda adapter (`textReply`): its status, headers and text,
 * which the adapter returns to Lambda as they are, without making a Response. Node's global
 * `Response` is lazy and its first use loads undici (event-headers.ts says what that costs a cold
 * start), and a Response with a body is a stream the adapter would only read back out.
 */
import { EventHeaders } from './event-headers.js';
import { BODY_MEMBERS, readFromReal } from './real-on-use.js';

/** The real Response's maker: a symbol, so the reply shows no member a Response lacks. */
const REAL = Symbol('the real Response');

/**
 * A Response to everything that reads it: `status`, `ok`, `headers` (an EventHeaders) and the
 * rest are its own; its body and every way to read it (`body`, `text()`, `clone()`…) come from a
 * real Response with the reply's text, made the first time anything asks. A middleware that
 * re-makes the reply after the handler (`c.res = new Response(c.res.body, c.res)`, Hono's own
 * `c.res` setter and `c.header` after the reply, etag's `clone()`) reads the body that way and
 * gets the text (test/webhook/lambda-adapter-replaced-response.test.ts). Not one to
 * `instanceof Response`, which would read the global.
 */
export class LambdaReply {
  readonly #text: string | null;
  readonly #status: number;
  readonly #headers: EventHeaders;
  #real: Response | undefined;

  constructor(text: string | null, status: number, headers: Record<string, string>) {
    this.#text = text;
    this.#status = status;
    this.#headers = new EventHeaders(headers);
  }

  /** The reply's text as the handler wrote it (null: no body); `undefined` for anything but a LambdaReply. */
  static textOf(res: unknown): string | null | undefined {
    return res instanceof LambdaReply ? res.#text : undefined;
  }

  get status(): number {
    return this.#status;
  }
  get statusText(): string {
    return '';
  }
  get ok(): boolean {
    return this.#status >= 200 && this.#status < 300;
  }
  get headers(): Headers {
    return this.#headers as unknown as Headers;
  }
  get redirected(): boolean {
    return false;
  }
  get type(): string {
    return 'default';
  }
  get url(): string {
    return '';
  }
  get bodyUsed(): boolean {
    return this.#real?.bodyUsed ?? false;
  }
  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  [REAL](): Response {
    this.#real ??= new Response(this.#text, { status: this.#status, headers: [...this.#headers] });
    return this.#real;
  }
}

// The body and every way to read it: a real Response's (`bodyUsed` is the reply's own, false until then).
readFromReal(LambdaReply.prototype, BODY_MEMBERS, (reply) => reply[REAL]());
