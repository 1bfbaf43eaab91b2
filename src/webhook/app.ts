/**
 * The Slack webhook as a Hono app: `POST /slack/commands`, `POST /slack/interactions`,
 * `GET /health`, and a JSON 404 for anything else. Every Slack request is read once as
 * bytes (capped), verified, and only then parsed. One `onError` maps the webhook's error
 * tree to responses; one JSON log line per request records route, command, user, outcome,
 * latency and the request id that travels in the queued message.
 */
import { type Context, Hono } from 'hono';
import { SLACK_ID } from '../slack/ids.js';
import { scrubDeep } from '../util/secret-scrub.js';
import type { WebhookDeps } from './deps.js';
import { MalformedSlackRequestError, SlackSignatureError, WebhookError } from './errors.js';
import { handleInteraction } from './interactions.js';
import { lambdaBody, textReply } from './lambda-adapter.js';
import { type NotQueued, slackRequestId } from './mutations.js';
import { MAX_BODY_BYTES, readBodyLimited, verifySlackRequest } from './slack-signature.js';
import { handleSlashCommand } from './slash-command.js';

/** A type, not an interface: it is handed to the logger as its fields (an index signature). */
type RequestLog = {
  route: string;
  outcome?: string;
  command?: string;
  userId?: string;
  teamId?: string;
  requestId?: string;
  retry?: boolean;
  /** Why a request was refused (signature, size), in words; never the body. */
  reason?: string;
  warning?: string;
  error?: unknown;
  /** Why a click's reply never reached Slack: the person was told nothing (reply.ts). */
  replyError?: unknown;
};

/** `startedAt`: epoch ms the request arrived (`arrivedAt`); deadlines count from there. */
type AppEnv = { Variables: { log: RequestLog; startedAt: number } };

/** On Lambda, the adapter binds the invocation's event (lambda-adapter.ts): its request context says when it arrived. */
type LambdaBindings = { requestContext?: { timeEpoch?: unknown; requestTimeEpoch?: unknown } } | undefined;

/** How far back an arrival time may lie and still be believed (API Gateway's clock against ours). */
const MAX_ARRIVAL_AGE_MS = 30_000;

/**
 * When the request reached API Gateway (`timeEpoch` for HTTP APIs, `requestTimeEpoch` for REST),
 * else now: Slack's three seconds run from there, so a cold start's init counts against the
 * deadline too. A time in the future or implausibly old is not believed.
 */
function arrivedAt(env: LambdaBindings, now: number): number {
  const context = env?.requestContext;
  const at = Number(context?.timeEpoch ?? context?.requestTimeEpoch);
  return Number.isFinite(at) && at <= now && now - at <= MAX_ARRIVAL_AGE_MS ? at : now;
}

/** Outcomes answered to the person that only an operator can cure: logged at error level. */
const OPERATOR_FAULTS: ReadonlySet<string> = new Set(['signing_failed'] satisfies NotQueued[]);

type CountedOutcome = 'ActionsQueueUnreachable' | 'RequestsNotSigned' | 'StateTableUnreachable';

/**
 * Outcomes answered 200 that an alarm counts: only an operator cures them, and nothing else
 * shows them. "Not queued" (or "not confirmed"): `queue_unconfirmed` counts with
 * `queue_unreachable`, for the request may be queued but the person was told it was not
 * confirmed, and a queue that hangs ends a send begun late (a cold start) that way, not as a
 * failure. The state table failing a read or a write (`pause`/`resume`, a denial, an answered
 * question, `status`, `held`): the person sees an error, a pause may not be in force.
 */
const COUNTED_OUTCOMES: Partial<Record<string, CountedOutcome>> = {
  ...({
    queue_unreachable: 'ActionsQueueUnreachable',
    queue_unconfirmed: 'ActionsQueueUnreachable',
    signing_failed: 'RequestsNotSigned',
  } satisfies Record<NotQueued, CountedOutcome>),
  state_unreachable: 'StateTableUnreachable',
  state_unconfirmed: 'StateTableUnreachable',
};

/**
 * A JSON answer, scrubbed of every secret the process holds: a reply can carry what a person
 * typed (a pause reason, a usage error's echo), and Slack shows it to the whole channel.
 * Posts go through the same scrubber (src/slack/post.ts).
 */
function json(c: Context, value: unknown, status: 200 | 400 | 401 | 404 | 413 | 500 | 503 = 200): Response {
  // Each string scrubbed before it is serialized: a redaction never breaks the JSON around it.
  return textReply(c, JSON.stringify(scrubDeep(value)), status, { 'content-type': 'application/json' });
}
const SLASH = /^\/[\p{L}\p{N}_-]{1,32}$/u;
/** One decoder for the container: `decode` without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder();

/** Reads (from the Lambda event when the adapter handed it over: `lambdaBody`), verifies, then parses a Slack form body. */
async function verifiedForm(
  deps: WebhookDeps,
  c: Context,
  now: number,
): Promise<{ form: URLSearchParams; body: Uint8Array }> {
  const request = c.req.raw;
  const body = await readBodyLimited(request, MAX_BODY_BYTES, lambdaBody(c.env));
  const readBy = { deadline: now + (deps.deadlineMs ?? 2500), clock: deps.now ?? Date.now };
  try {
    await verifySlackRequest(request.headers, body, deps.secrets, now, readBy);
  } catch (error) {
    // Only Slack-shaped requests (both headers, a fresh timestamp, a v0 signature) that fail the
    // HMAC, as every request does under a wrong signing secret: a scanner without Slack's headers
    // is not counted, so the WebhookSigningSecretWrong alarm does not page for one.
    if (error instanceof SlackSignatureError && error.outcome === 'signature_mismatch')
      deps.metrics?.put('SlackRequestsRejected', 1, {});
    throw error;
  }
  deps.metrics?.put('SlackRequestsVerified', 1, {});
  return { form: new URLSearchParams(UTF8.decode(body)), body };
}

function slackId(form: URLSearchParams, field: string): string {
  const value = form.get(field);
  if (value === null || !SLACK_ID.test(value))
    throw new MalformedSlackRequestError(`missing or invalid ${field}`);
  return value;
}

export function createWebhookApp(deps: WebhookDeps): Hono<AppEnv> {
  const now = deps.now ?? Date.now;
  const app = new Hono<AppEnv>();

  app.use(async (c, next) => {
    // The path is caller input: bounded before it is logged.
    const startedAt = arrivedAt(c.env as LambdaBindings, now());
    const log: RequestLog = { route: `${c.req.method} ${c.req.path.slice(0, 200)}` };
    c.set('log', log);
    c.set('startedAt', startedAt);
    await next();
    const status = c.res.status;
    // Exactly one line per request; its level says whether anybody needs to look. A request
    // that could not be signed was answered (200), but only an operator can fix its secrets.
    const operatorFault = OPERATOR_FAULTS.has(log.outcome ?? '');
    // Answered 200 ("not queued"): without a metric, a queue that stays unreachable fails every
    // chat-ops change while the dashboards look calm (the ActionsQueueUnreachable alarm reads it).
    // The same for a key that cannot be read: every change fails "not queued" (RequestsNotSigned),
    // and for a state table that fails every pause (StateTableUnreachable).
    const counted = COUNTED_OUTCOMES[log.outcome ?? ''];
    if (counted)
      deps.metrics?.put(
        counted,
        1,
        {},
        { outcome: log.outcome, ...(log.requestId ? { requestId: log.requestId } : {}) },
      );
    const level =
      status >= 500 || operatorFault ? 'error' : status >= 400 || log.error || log.warning ? 'warn' : 'info';
    // The line's fields completed in place, not copied with a rest and a spread (~4 µs on Node 20,
    // on every request): an outcome already set keeps its place, as in `{ ...log, outcome, … }`.
    const line = Object.assign(log, {
      outcome: log.outcome ?? (status < 400 ? 'ok' : `http_${status}`),
      status,
      latencyMs: now() - startedAt,
    });
    deps.logger[level]('request', line);
  });

  app.get('/health', (c) => json(c, { ok: true, service: 'console-autopilot-webhook' }));

  app.post('/slack/commands', async (c) => {
    const log = c.get('log');
    const startedAt = c.get('startedAt');
    const { form, body } = await verifiedForm(deps, c, startedAt);
    if (form.get('ssl_check') === '1') {
      log.outcome = 'ssl_check';
      return textReply(c, null, 200, {});
    }
    log.teamId = slackId(form, 'team_id');
    log.userId = slackId(form, 'user_id');
    log.requestId = slackRequestId(body);
    log.retry = c.req.header('x-slack-retry-num') !== undefined;
    const slash = form.get('command') ?? '';
    const result = await handleSlashCommand(deps, {
      teamId: log.teamId,
      userId: log.userId,
      text: form.get('text') ?? '',
      slash: SLASH.test(slash) ? slash : '/autopilot',
      responseUrl: form.get('response_url') ?? undefined,
      requestId: log.requestId,
      retry: log.retry,
      startedAt,
    });
    log.outcome = result.outcome;
    if (result.command) log.command = result.command;
    if (result.error !== undefined) log.error = result.error;
    return json(c, result.reply);
  });

  app.post('/slack/interactions', async (c) => {
    const log = c.get('log');
    const startedAt = c.get('startedAt');
    const { form } = await verifiedForm(deps, c, startedAt);
    log.command = 'interaction';
    log.retry = c.req.header('x-slack-retry-num') !== undefined;
    const result = await handleInteraction(deps, {
      payload: form.get('payload') ?? undefined,
      retry: log.retry,
      startedAt,
    });
    log.outcome = result.outcome;
    if (result.userId) log.userId = result.userId;
    if (result.requestId) log.requestId = result.requestId;
    if (result.error !== undefined) log.error = result.error;
    if (result.warning) log.warning = result.warning;
    if (result.replyError !== undefined) log.replyError = result.replyError;
    // Slack ignores the body of an interaction response; replies go to the response_url.
    return textReply(c, null, 200, {});
  });

  app.notFound((c) =>
    json(c, { error: 'not_found', message: `no route for ${c.req.method} ${c.req.path.slice(0, 200)}` }, 404),
  );

  app.onError((error, c) => {
    const log = c.get('log');
    if (error instanceof WebhookError) {
      if (log) {
        log.outcome = error.outcome;
        // Never the body, never the signature: only what failed.
        log.reason = error.message;
        if (error.cause !== undefined) log.error = error.cause;
      }
      return json(c, { error: error.outcome, message: error.message }, error.status);
    }
    if (log) {
      log.outcome = 'internal_error';
      log.error = error;
    } else {
      deps.logger.error('unhandled error', { error });
    }
    return json(c, { error: 'internal_error', message: 'internal error' }, 500);
  });

  return app;
}
