/**
 * Proof that a request comes from Slack, checked on the raw bytes before anything parses
 * them: `X-Slack-Signature` = `v0=` + hex HMAC-SHA256(signing secret,
 * `v0:{X-Slack-Request-Timestamp}:{body}`), compared in constant time, with the timestamp
 * at most five minutes off either way. Bodies are read once, with a size cap enforced
 * before hashing. A mismatch re-reads the secret (rate-limited by the provider) and tries
 * once more, so a rotated signing secret is picked up without a redeploy.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AutopilotSecretValues, SecretsProvider } from '../secrets/secrets.js';
import { type Settled, settleBy, settled } from './deadline.js';
import { DependencyUnavailableError, PayloadTooLargeError, SlackSignatureError } from './errors.js';

export const MAX_BODY_BYTES = 64 * 1024;
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;

const SIGNATURE = /^v0=[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;
const DIGITS = /^\d+$/;

/**
 * Reads the body once, as bytes, refusing more than `limit` bytes: a declared
 * Content-Length over the limit is refused before reading, a stream that runs past it is
 * cancelled as soon as it does. `inMemory`: the body, when the caller already holds it (a
 * Lambda event's, handed over by src/webhook/lambda-adapter.ts): only its size is checked.
 */
export async function readBodyLimited(
  request: Request,
  limit = MAX_BODY_BYTES,
  inMemory?: Uint8Array,
): Promise<Uint8Array> {
  if (inMemory !== undefined) {
    if (inMemory.byteLength > limit) throw new PayloadTooLargeError(limit);
    return inMemory;
  }
  const declared = request.headers.get('content-length');
  if (declared !== null && DIGITS.test(declared.trim()) && Number(declared.trim()) > limit) {
    throw new PayloadTooLargeError(limit);
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new PayloadTooLargeError(limit);
    }
    chunks.push(value);
  }
  // A body that came in one chunk (a Lambda event's, always) is that chunk: no copy.
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** The single value of a header; a missing or repeated (comma-joined) header is refused. */
function singleHeader(headers: Headers, name: string): string {
  const value = headers.get(name);
  if (value === null || value.trim() === '') {
    throw new SlackSignatureError('signature_missing', `missing ${name} header`);
  }
  if (value.includes(',')) {
    throw new SlackSignatureError('signature_repeated', `repeated ${name} header`);
  }
  return value.trim();
}

export interface VerifyInput {
  headers: Headers;
  body: Uint8Array;
  signingSecret: string;
  /** Epoch milliseconds. */
  now: number;
}

/** Computes the v0 signature Slack would send for `body` at `timestamp` (also used by tests and the local banner). */
export function slackSignature(signingSecret: string, timestamp: string, body: Uint8Array | string): string {
  return `v0=${signatureMac(signingSecret, timestamp, body).toString('hex')}`;
}

function signatureMac(signingSecret: string, timestamp: string, body: Uint8Array | string): Buffer {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
  return hmac.digest();
}

/** Throws a SlackSignatureError saying what is wrong; returns when the request is Slack's. */
export function verifySlackSignature(input: VerifyInput): void {
  const signature = singleHeader(input.headers, 'x-slack-signature');
  const timestamp = singleHeader(input.headers, 'x-slack-request-timestamp');
  if (!TIMESTAMP.test(timestamp)) {
    throw new SlackSignatureError('signature_bad_timestamp', 'timestamp is not a number of seconds');
  }
  const skew = Math.floor(input.now / 1000) - Number(timestamp);
  if (skew > TIMESTAMP_TOLERANCE_SECONDS) {
    throw new SlackSignatureError('signature_expired', 'timestamp is more than five minutes old');
  }
  if (skew < -TIMESTAMP_TOLERANCE_SECONDS) {
    throw new SlackSignatureError('signature_future', 'timestamp is more than five minutes ahead');
  }
  if (!SIGNATURE.test(signature)) {
    throw new SlackSignatureError('signature_malformed', 'signature is not v0=<hex>');
  }
  if (input.signingSecret === '') {
    // Never accept an HMAC made with an empty key: that would be a signature anybody can make.
    throw new SlackSignatureError('signature_unconfigured', 'no signing secret is configured');
  }
  // The MAC's bytes against the given hex's (its syntax checked above): no hex written to be read back.
  const expected = signatureMac(input.signingSecret, timestamp, input.body);
  const given = Buffer.from(signature.slice(3), 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new SlackSignatureError('signature_mismatch', 'signature does not match');
  }
}

/**
 * Verifies with the current secret; on a mismatch asks the provider to re-read it (at most
 * once a minute, the provider's rule) and verifies once more with the new value.
 * Returns whether the secret was refreshed, for the log.
 */
export async function verifySlackRequest(
  headers: Headers,
  body: Uint8Array,
  secrets: SecretsProvider,
  now: number,
  /** The signing secret is read by then or the request is answered 503 (Slack waits 3 s). */
  readBy?: { deadline: number; clock: () => number },
): Promise<void> {
  // A fresh cached secret needs no read, so no deadline timer either (it is on every request).
  const fresh = secrets.cached?.();
  const read: Settled<AutopilotSecretValues> = fresh
    ? { settled: true, value: fresh }
    : readBy
      ? await settleBy(secrets.get(), readBy.deadline, readBy.clock)
      : await settled(secrets.get());
  if (!read.settled) throw new DependencyUnavailableError('the signing secret could not be read in time');
  if ('error' in read)
    throw new DependencyUnavailableError('the signing secret cannot be read', { cause: read.error });
  const secret = read.value.slackSigningSecret;
  try {
    verifySlackSignature({ headers, body, signingSecret: secret, now });
  } catch (error) {
    if (!(error instanceof SlackSignatureError) || error.outcome !== 'signature_mismatch') throw error;
    // Re-read by the same deadline as the first read: a slow Secrets Manager answers 503 in time.
    const again = secrets
      .refresh()
      .then(async (refreshed) => (refreshed ? (await secrets.get()).slackSigningSecret : undefined));
    // A re-read refused as too soon (a forged request, mostly) answers at once: no deadline timer.
    const soon = await Promise.race([
      settled(again),
      new Promise<undefined>((go) => setImmediate(() => go(undefined))),
    ]);
    const reread =
      soon ?? (readBy ? await settleBy(again, readBy.deadline, readBy.clock) : await settled(again));
    if (!reread.settled)
      throw new DependencyUnavailableError('the signing secret could not be read again in time');
    // A failed re-read keeps the old secret in use: the request is still unproven.
    const rotated = 'value' in reread ? reread.value : undefined;
    if (rotated === undefined || rotated === secret) throw error;
    verifySlackSignature({ headers, body, signingSecret: rotated, now });
  }
}
