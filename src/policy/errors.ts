/** The policy package's failures: a policy that does not validate, a test case that cannot be read. */

/** A policy file or value that is not a valid policy; the message names every zod path. */
export class PolicyError extends Error {
  override name = 'PolicyError';
}

/** A policy test case that cannot be run as written (an instant that never or twice shows, …). */
export class CaseError extends Error {
  override name = 'CaseError';
}
