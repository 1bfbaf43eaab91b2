/** The worker's failures. */

/** Thrown to have the record retried (reported in `batchItemFailures`): nothing was lost, try again later. */
export class RetryLater extends Error {
  override name = 'RetryLater';
}
