/**
 * Structured JSON logs, one line per event, for CloudWatch Logs Insights. Small on purpose:
 * it is on every handler's cold-start path. Values under secret-looking keys are redacted
 * before they are written, so a careless field can never leak a key or signature.
 */
import { scrubSecrets } from '../util/secret-scrub.js';
import { invocationFields } from './invocation.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /(api[-_]?key|secret|signature|token|password|authorization|cookie)/i;

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

function redact(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    return {
      name: value.name,
      message: scrubSecrets(value.message),
      ...(depth < 2 && value.cause ? { cause: redact(value.cause, depth + 1) } : {}),
    };
  }
  if (typeof value === 'string') return scrubSecrets(value);
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return redactInto({}, value as Record<string, unknown>, depth);
}

/**
 * Copies `source`'s own fields into `out`, each redacted, and returns `out`. The line's fields
 * are merged this way, not with `{ ...a, ...b }`: on Node 20 every spread after the first
 * defines its properties one by one through the runtime (~10 µs for a request line's dozen,
 * measured), and a line is written on every request. `__proto__` stays a plain field, as a
 * spread would keep it.
 */
function redactInto(out: Record<string, unknown>, source: Record<string, unknown>, depth: number) {
  for (const key of Object.keys(source)) {
    const item = SECRET_KEY.test(key) ? '[redacted]' : redact(source[key], depth + 1);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

/**
 * The line as JSON; fields JSON cannot write (a BigInt, a cycle deeper than `redact` looks) must
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
