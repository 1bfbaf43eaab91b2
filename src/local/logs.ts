/**
 * Where the local stack's JSON lines go. On Lambda each function's lines (logs and EMF metrics)
 * fill its CloudWatch log group; locally they are written in full to `<dir>/<function>.jsonl`,
 * and the terminal shows only the warn and error lines, each in short (time, function, level,
 * message, request id), so that the banner and the "to Slack" blocks stay readable: the first
 * sweep alone writes dozens of lines. `AUTOPILOT_LOCAL_LOGS=all` prints every line as well.
 */
import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, optionalEnv } from '../config/env.js';
import type { LogSink } from '../observability/logger.js';
import { printableLine } from './printable.js';

/** What the terminal shows of the JSON lines: `warn` (default) the warn and error lines in short, `all` every line in full. */
export type TerminalLogs = 'warn' | 'all';
const TERMINAL_LOGS: readonly TerminalLogs[] = ['warn', 'all'];
export const TERMINAL_LOGS_VARIABLE = 'AUTOPILOT_LOCAL_LOGS';

/** `AUTOPILOT_LOCAL_LOGS`, `warn` when unset; another value is refused with the variable's name. */
export function terminalLogsEnv(env: Record<string, string | undefined> = process.env): TerminalLogs {
  const raw = optionalEnv('AUTOPILOT_LOCAL_LOGS', env);
  if (raw === undefined) return 'warn';
  const value = TERMINAL_LOGS.find((known) => known === raw.trim());
  if (!value) {
    throw new ConfigError(
      `environment variable ${TERMINAL_LOGS_VARIABLE} must be one of ${TERMINAL_LOGS.join(', ')}, got "${raw}"`,
    );
  }
  return value;
}

export interface LocalLogsOptions {
  /** The directory of the `<function>.jsonl` files. */
  dir: string;
  /** Default `warn`. */
  terminal?: TerminalLogs;
  /** Where terminal lines go (default stdout, where the Slack receiver prints too). */
  print?: (text: string) => void;
}

export interface LocalLogs {
  dir: string;
  terminal: TerminalLogs;
  /** The file that holds `name`'s lines. */
  fileOf(name: string): string;
  /** Where the function (or part) `name` writes its JSON lines. */
  sink(name: string): LogSink;
  /**
   * Empties the files of an earlier start. The stack calls it once it knows that no running stack
   * owns them (a second `npm start` must leave the first one's files alone).
   */
  open(): void;
}

/** Nothing is written to disk until a line is, or `open()` is called. */
export function createLocalLogs(options: LocalLogsOptions): LocalLogs {
  const { dir } = options;
  const terminal = options.terminal ?? 'warn';
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const fileOf = (name: string) => join(dir, `${name}.jsonl`);
  return {
    dir,
    terminal,
    fileOf,
    sink(name) {
      const file = fileOf(name);
      return (line) => {
        try {
          mkdirSync(dir, { recursive: true });
          appendFileSync(file, `${line}\n`);
        } catch {
          // A log call must never throw (it runs in catch blocks too): a line the file refused is printed whole.
          print(line);
          return;
        }
        if (terminal === 'all') print(line);
        else {
          const short = shortLine(name, line);
          if (short !== undefined) print(short);
        }
      };
    },
    open() {
      mkdirSync(dir, { recursive: true });
      for (const file of readdirSync(dir))
        if (file.endsWith('.jsonl')) rmSync(join(dir, file), { force: true });
    },
  };
}

/**
 * The terminal's form of one line `name` wrote (time, function, level, message with its error or
 * reason, request id), or undefined for a line the terminal does not show (info, debug, a metric):
 * `14:22:26Z worker   WARN  reply not delivered: Slack answered 500: …  (request ev:approve-…)`.
 * Times are the line's own, in UTC as in the file. A line that is not a JSON object is shown
 * whole: only lines known to be quiet are left to the file. Text from outside is made printable.
 */
export function shortLine(name: string, line: string): string | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return printableLine(line);
  }
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return printableLine(line);
  const { level, time, message, error, reason, requestId, awsRequestId } = entry as Record<string, unknown>;
  if (level !== 'warn' && level !== 'error') return undefined;
  const at = typeof time === 'string' && time.length >= 19 ? `${time.slice(11, 19)}Z` : '--:--:--Z';
  // Why, in words: the error, else the reason a refusal or a give-up gives.
  const because = errorText(error) ?? (typeof reason === 'string' ? reason : undefined);
  const request =
    typeof requestId === 'string' ? requestId : typeof awsRequestId === 'string' ? awsRequestId : undefined;
  const text = `${String(message)}${because ? `: ${because}` : ''}${request ? `  (request ${request})` : ''}`;
  return `${at} ${name.padEnd(8)} ${level.toUpperCase().padEnd(5)} ${printableLine(text)}`;
}

/** An `error` field's words: the logger writes errors as `{ name, message, cause }`, callers often as strings. */
function errorText(error: unknown): string | undefined {
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return undefined;
}
