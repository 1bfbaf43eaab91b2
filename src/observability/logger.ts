/**
 * Structured JSON logs, one line per event, for CloudWatch Logs Insights. Small on purpose:
 * it is on every handler's cold-start path. Values under secret-looking keys are redacted and
 * known secrets scrubbed at every level before they are written, so a careless field can never
 * leak a key or signature; what nests past `MAX_DEPTH` or loops back is replaced, never written raw.
 */
import { scrubSecrets } from '../util/secret-scrub.js';
import { invocationFields } from './invocation.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /(api[-_]?key|secret|signature|token|password|authorization|cookie)/i;
/**
 * `SECRET_KEY`'s verdict per field name, as names recur on every line (a dozen a request line).
 * Bounded, as names can come from a peer's body: emptied when full.
 */
const secretNames = new Map<string, boolean>();
function secretName(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = SECRET_KEY.test(name);
    if (secretNames.size >= 1024) secretNames.clear();
    secretNames.set(name, secret);
  }
  return secret;
}

export type LogFields = Record<string, unknown>;
export type LogSink = (line: string) => void;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  service: string;
  level?: LogLevel;
  sink?: LogSink;
  fields?: LogFields;
  /** Epoch ms each line's `time` reads; inject the clock the caller runs on. Default `Date.now`. */
  now?: () => number;
}

/**
 * How deep fields are redacted. Deeper than any line of ours nests (an error's cause chain, a
 * platform body inside it), and it bounds the cost of a pathological value. What lies below is
 * replaced by a marker: handed to JSON.stringify raw, a secret-named key, an error's `toJSON`
 * headers or a secret JSON spells differently (a `"`) would be written in the clear.
 */
const MAX_DEPTH = 16;
const TOO_DEEP = '[nested too deep]';
/** A value that contains itself: marked, so the line is still written (JSON.stringify would throw). */
const CIRCULAR = '[circular]';

/** `value` as it may be written; `ancestors`: the objects being redacted around it (cycles). */
function redact(value: unknown, depth: number, ancestors: object[]): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return TOO_DEEP;
  // A linear look: `ancestors` never holds more than MAX_DEPTH objects.
  if (ancestors.includes(value)) return CIRCULAR;
  ancestors.push(value);
  try {
    if (value instanceof Error) {
      // Name and message only (the stack and a toJSON's response headers stay out); the cause
      // chain is followed like any field, so a wrapped platform error keeps its words.
      return {
        name: scrubSecrets(String(value.name)),
        message: scrubSecrets(String(value.message)),
        ...(value.cause ? { cause: redact(value.cause, depth + 1, ancestors) } : {}),
      };
    }
    if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1, ancestors));
    return redactInto({}, value as Record<string, unknown>, depth, ancestors);
  } finally {
    ancestors.pop();
  }
}

/**
 * Copies `source`'s own fields into `out`, each redacted, and returns `out`. The line's fields
 * are merged this way, not with `{ ...a, ...b }`: on Node 20 every spread after the first
 * defines its properties one by one through the runtime (~10 µs for a request line's dozen,
 * measured), and a line is written on every request. `__proto__` stays a plain field, as a
 * spread would keep it.
 */
function redactInto(
  out: Record<string, unknown>,
  source: Record<string, unknown>,
  depth: number,
  ancestors: object[] = [],
) {
  for (const name of Object.keys(source)) {
    const item = secretName(name) ? '[redacted]' : redact(source[name], depth + 1, ancestors);
    // Keys are scrubbed too (a peer's body may be keyed by what it echoes): short ones cost nothing.
    const key = scrubSecrets(name);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

/**
 * The line as JSON; fields JSON cannot write (a BigInt; cycles are marked by `redact`) must
 * not throw from a log call (in a catch block that would turn one failed record into a failed
 * batch): the line keeps its level and message and says why its fields are missing.
 */
function serialize(entry: unknown, head: { level: LogLevel; message: string }): string {
  try {
    return JSON.stringify(entry);
  } catch (error) {
    return JSON.stringify({ ...head, logError: `fields not written: ${(error as Error).message}` });
  }
}

export function createLogger(options: LoggerOptions): Logger {
  const threshold =
    LEVELS[options.level ?? (process.env.LOG_LEVEL as LogLevel | undefined) ?? 'info'] ?? LEVELS.info;
  const sink = options.sink ?? ((line: string) => process.stdout.write(`${line}\n`));
  const base = options.fields ?? {};
  const write = (level: LogLevel, message: string, fields?: LogFields) => {
    if (LEVELS[level] < threshold) return;
    const head = {
      level,
      time: new Date((options.now ?? Date.now)()).toISOString(),
      service: options.service,
      message,
    };
    // Later sources win, as in `{ ...head, ...invocation, ...base, ...fields }` (see redactInto).
    const entry = redactInto(redactInto({}, head, 0), invocationFields() as Record<string, unknown>, 0);
    redactInto(entry, base, 0);
    if (fields) redactInto(entry, fields, 0);
    // The last step before the line leaves: fields joined above may spell a secret none held alone.
    sink(scrubSecrets(serialize(entry, head)));
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
    child: (fields) => createLogger({ ...options, fields: { ...base, ...fields } }),
  };
}
