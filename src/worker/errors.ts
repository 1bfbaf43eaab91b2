/** The worker's failures. */

export interface RetryLaterOptions extends ErrorOptions {
  /**
   * Another copy of the message or request is handling it (executing the effect, dead-lettering
   * the message, ending the request): this copy did not fail, so its last receive tells nobody
   * that the request was given up (src/worker/give-up.ts).
   */
  otherCopy?: boolean;
  /** A Console API call of this request may have reached the platform (the change may have been made). */
  mayHaveReached?: boolean;
}

/** Thrown to have the record retried (reported in `batchItemFailures`): nothing was lost, try again later. */
export class RetryLater extends Error {
  override name = 'RetryLater';
  readonly otherCopy: boolean;
  readonly mayHaveReached: boolean;

  constructor(message: string, options: RetryLaterOptions = {}) {
    const { otherCopy = false, mayHaveReached = false, ...rest } = options;
    super(message, rest);
    this.otherCopy = otherCopy;
    this.mayHaveReached = mayHaveReached;
  }
}
