/**
 * What the platform said in an error answer, bounded where the client builds its error. The body
 * is untrusted and only the 16 MB response cap holds it: unbounded, its words went on into audit
 * records and finals (a DynamoDB item holds 400 KB), Slack replies and log lines (a CloudWatch
 * event holds 256 KB), and a 500 KB message left a request's end unrecorded. Everything downstream
 * reads the bounded copy; nothing else needs to cut the platform's words.
 */

/** The most of one piece of the platform's text we carry (a message, a field error, a raw body). */
export const PLATFORM_TEXT_MAX = 2_000;
/** The most text (strings and keys together) kept of a whole JSON error body. */
const BODY_BUDGET = 8_000;
/** Deeper than this, a body is no error body of the platform's: the rest is left out. */
const BODY_DEPTH = 4;

/**
 * `text` cut to `max` characters, with how much was left out. Never cuts a surrogate pair in two:
 * a lone surrogate is not valid UTF-8, and JSON encoders and loggers may refuse or mangle it.
 */
export function boundText(text: string, max = PLATFORM_TEXT_MAX): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // the high half of a pair: keep both out
  return `${text.slice(0, end)}… (${(text.length - end).toLocaleString('en-US')} characters more)`;
}

/**
 * A parsed error body with its strings cut and its size held to a budget, in the body's own
 * order (`status`, `message`, `errors` first on the platform's answers): what fits of a body
 * bigger than the budget, then a marker saying what was left out. A raw (non-JSON) body is cut
 * like any text.
 */
export function boundBody(body: unknown): unknown {
  const budget = { left: BODY_BUDGET };
  return bound(body, budget, 0);
}

function bound(value: unknown, budget: { left: number }, depth: number): unknown {
  if (typeof value === 'string') {
    const kept = boundText(value, Math.min(PLATFORM_TEXT_MAX, Math.max(budget.left, 0)));
    budget.left -= Math.min(value.length, PLATFORM_TEXT_MAX);
    return kept;
  }
  if (value === null || typeof value !== 'object') {
    budget.left -= 1;
    return value;
  }
  if (depth >= BODY_DEPTH) return '… (nested too deep)';
  if (Array.isArray(value)) {
    const kept: unknown[] = [];
    for (const entry of value) {
      if (budget.left <= 0) {
        kept.push(`… (${value.length - kept.length} entries more)`);
        break;
      }
      kept.push(bound(entry, budget, depth + 1));
    }
    return kept;
  }
  const kept: Record<string, unknown> = {};
  const entries = Object.entries(value);
  let taken = 0;
  for (const [key, entry] of entries) {
    if (budget.left <= 0) {
      kept['…'] = `${entries.length - taken} fields more`;
      break;
    }
    const name = boundText(key, 100);
    budget.left -= name.length;
    kept[name] = bound(entry, budget, depth + 1);
    taken += 1;
  }
  return kept;
}

/**
 * One `{property, errorMessage}` entry of an error body. An entry that is plain text
 * (`"errors": ["phaseID must be the current phase"]`) is kept as one with no property: it is
 * what the platform said, and dropping it lost the reason a request was refused.
 */
export interface FieldError {
  property: string;
  errorMessage: string;
}

export function fieldErrors(body: unknown): FieldError[] | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const errors = (body as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return undefined;
  return errors.flatMap((entry): FieldError[] => {
    if (typeof entry === 'string') return entry ? [{ property: '', errorMessage: entry }] : [];
    if (typeof entry === 'number' || typeof entry === 'boolean') {
      return [{ property: '', errorMessage: String(entry) }];
    }
    if (!entry || typeof entry !== 'object') return [];
    const { property, errorMessage } = entry as { property?: unknown; errorMessage?: unknown };
    return [
      {
        property: typeof property === 'string' ? property : '',
        errorMessage: typeof errorMessage === 'string' ? errorMessage : JSON.stringify(errorMessage ?? ''),
      },
    ];
  });
}

/** One entry as text: `property: message`, or the message alone when it names no property. */
function fieldErrorText(entry: FieldError): string {
  return entry.property ? `${entry.property}: ${entry.errorMessage}` : entry.errorMessage;
}

/** A piece that ends with its own stop (or a colon, a semicolon, a comma): the next follows after a space. */
const ENDS_PUNCTUATED = /[.!?…:;,]$/u;

/**
 * Pieces of the platform's text as one line: after a piece that ends with punctuation of its own
 * ("… has no group named x.") the next follows after a space, otherwise after "; ", so no ".;" or
 * ". —" is ever made of its words. Whitespace around a piece is dropped, nothing else.
 */
function joinSaid(pieces: readonly string[]): string {
  let out = '';
  for (const raw of pieces) {
    const piece = raw.trim();
    if (!piece) continue;
    out = out === '' ? piece : `${out}${ENDS_PUNCTUATED.test(out) ? ' ' : '; '}${piece}`;
  }
  return out;
}

/**
 * The platform's own explanation in a (bounded) error body: its `message` and `errors[]`, joined
 * tidily (`joinSaid`) and cut to `PLATFORM_TEXT_MAX` as a whole; undefined when it said nothing.
 */
export function platformSaid(body: unknown, errors: FieldError[] | undefined): string | undefined {
  const message = body && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
  const said = joinSaid([typeof message === 'string' ? message : '', ...(errors ?? []).map(fieldErrorText)]);
  return said ? boundText(said) : undefined;
}

/** The error's message: the call and status, then what the platform said (as `platformSaid`: bounded as a whole). */
export function apiErrorMessage(head: string, body: unknown, errors: FieldError[] | undefined): string {
  if (body && typeof body === 'object') {
    const said = platformSaid(body, errors);
    return said ? `${head} — ${said}` : head;
  }
  if (typeof body === 'string' && body.length > 0) {
    // HTML or plain-text bodies: a short, single-line excerpt is enough to diagnose.
    return `${head} — ${boundText(body.replace(/\s+/g, ' ').trim(), 200)}`;
  }
  return head;
}
