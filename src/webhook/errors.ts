/**
 * The webhook's own error tree. Each error knows the HTTP status it becomes, so one
 * `app.onError` maps them all and bad input can never surface as a 5xx. The read deadline is
 * the one failure told in words instead (a reply saying the platform is slow).
 */

export class WebhookError extends Error {
  override name = 'WebhookError';
  /** HTTP status the error is answered with. */
  readonly status: 400 | 401 | 413 | 503;
  /** Short machine-readable outcome for the request log (`signature_expired`, ...). */
  readonly outcome: string;

  constructor(status: 400 | 401 | 413 | 503, outcome: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.outcome = outcome;
  }
}

/** The request is not provably from Slack: missing, repeated, stale or wrong signature headers. */
export class SlackSignatureError extends WebhookError {
  override name = 'SlackSignatureError';
  constructor(outcome: string, message: string) {
    super(401, outcome, message);
  }
}

/** The body is larger than we are willing to hash (checked before reading it all). */
export class PayloadTooLargeError extends WebhookError {
  override name = 'PayloadTooLargeError';
  constructor(limit: number) {
    super(413, 'payload_too_large', `body exceeds ${limit} bytes`);
  }
}

/** A verified request whose form body lacks what Slack always sends (team, user, ...). */
export class MalformedSlackRequestError extends WebhookError {
  override name = 'MalformedSlackRequestError';
  constructor(message: string) {
    super(400, 'malformed_request', message);
  }
}

/** A dependency we cannot work without (the signing secret) is unavailable right now. */
export class DependencyUnavailableError extends WebhookError {
  override name = 'DependencyUnavailableError';
  constructor(message: string, options?: ErrorOptions) {
    super(503, 'dependency_unavailable', message, options);
  }
}

/** A read's overall deadline passed: every call in flight is aborted and the person reads "slow". */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
}
