/**
 * What every CLI command shares: its output streams and environment (injectable, so tests
 * run commands in-process), the exit codes, a plain-text table and how an error from outside is
 * shown. Its errors are in errors.ts.
 */
import { scrubSecrets } from '../util/secret-scrub.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** The clock (tests pin it). */
  now: () => Date;
  /** Waits between polls (`enqueue --wait`); default a timer. Tests may advance their clock instead. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Asks the person at the terminal a yes/no question (`dlq delete` without --yes); absent when
   * there is no one to ask (stdin is not a terminal), and a command that must ask then refuses.
   */
  confirm?: (question: string) => Promise<boolean>;
}

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/**
 * Control characters (C0, DEL, C1), the bidirectional overrides and isolates that reorder a line,
 * and the Unicode line and paragraph separators, which log viewers (a CI job's web log) break at.
 */
const UNPRINTABLE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * A cell's text as it may reach a terminal: cells show fields from outside (a requester id any
 * queue sender chooses, group names an event fills in), where an escape sequence would drive the
 * terminal and a newline would forge a row. Each such character is shown as its escape (`\u001b`, `\n`).
 */
export function printable(text: string): string {
  return text.replace(
    UNPRINTABLE,
    (c) => NAMED_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * An error as the CLI shows one it did not make (a table's, an AWS SDK's, a peer's): its name and
 * message, scrubbed of every secret the process holds (a peer may echo a key back) and printable
 * (its text is the peer's: an escape sequence in it must not drive the terminal, a line break
 * must not forge a line of ours).
 */
export function errorText(error: unknown): string {
  return printable(scrubSecrets(error instanceof Error ? `${error.name}: ${error.message}` : String(error)));
}

/** Left-aligned columns, a header and a rule; cells are shown printable and cut at 60 characters. */
export function renderTable(headers: string[], rows: string[][]): string {
  const cut = (raw: string) => {
    const s = printable(raw);
    return s.length > 60 ? `${s.slice(0, 59)}…` : s;
  };
  const cells = [headers, ...rows].map((row) => row.map((cell) => cut(cell ?? '')));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const [head, ...body] = cells;
  return [line(head ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** Prints a command's help; exit code 0. */
export function printHelp(io: CliIo, usage: string): number {
  io.stdout(usage);
  return EXIT.ok;
}
