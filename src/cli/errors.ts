/** How a CLI command fails: a bad command line (exit 2) or a failure the user can fix (exit 1). */

/** Bad command line: message + usage on stderr, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

/** A failure the user can fix (bad file, unreachable queue): message on stderr, exit code 1 (or the one given). */
export class CommandError extends Error {
  override name = 'CommandError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
