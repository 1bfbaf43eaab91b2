/**
 * The action request: the SQS message body that asks the worker for one mutation of the
 * Console API. It is the public interface for CI producers (see README, "Action request"),
 * so the schema is strict about what it needs and says exactly what is wrong. Every object
 * refuses keys it does not know: a field the worker would ignore (`dryrun` for `dryRun`, a
 * misspelt `requestId`) would otherwise make a real change the producer did not ask for.
 */
import { createHash } from 'node:crypto';
import '../util/zod-locale.js';
import * as z from 'zod/mini';
import { once } from '../util/once.js';
import { formatIssues } from '../util/zod-issues.js';
import { formerEffectKey } from './former-effect-key.js';

// Cold start (bench/cold-start.bench.ts): every handler imports this module, so it is written
// with zod/mini (classic zod costs ~40 ms at init) and builds no schema when it loads: they are
// built together on the first call of `actionRequestSchemas()` and shared afterwards.

export const REQUESTER_SOURCES = ['slack', 'ci', 'events', 'schedule'] as const;

/** How far ahead of the worker's clock a `requestedAt` may be (clock skew between producers). */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/**
 * Why the worker refuses `request` at `now` before the policy sees it (`requested-in-future`), or
 * undefined: a request dated ahead would never reach `maxDeferHours`. Shared with the CLI's
 * `policy test` and `policy explain`, which decide as the worker would.
 */
export function futureDated(request: Pick<ActionRequest, 'requestedAt'>, now: Date): string | undefined {
  if (Date.parse(request.requestedAt) - now.getTime() <= MAX_FUTURE_SKEW_MS) return undefined;
  return `requestedAt ${request.requestedAt} is more than 5 minutes ahead of the worker's clock (${now.toISOString()})`;
}

/** How long Slack takes posts to a `response_url` (FACTS.md: up to 5 replies within 30 minutes). */
export const SLACK_RESPONSE_URL_LIFETIME_MS = 30 * 60_000;

/**
 * The request's Slack reply URL while Slack still takes posts to it, else undefined: a request
 * held past 30 minutes (a window, a pause, a question) would only fail there. Without `issuedAt`
 * (a producer that does not say) the URL is tried as before.
 */
export function liveReplyUrl(request: Pick<ActionRequest, 'reply'>, now: Date): string | undefined {
  const url = request.reply?.slackResponseUrl;
  const issuedAt = Date.parse(request.reply?.issuedAt ?? '');
  return url && !(now.getTime() - issuedAt > SLACK_RESPONSE_URL_LIFETIME_MS) ? url : undefined;
}

const requestIdSchema = () =>
  z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(128),
      z.regex(/^[A-Za-z0-9._:@/-]+$/, 'letters, digits and . _ : @ / - only'),
    );

/** Case, `_` and `-` aside: `dry_run`, `DryRun` and `dryrun` are all `dryrun`. */
const nearKey = (key: string) => key.toLowerCase().replace(/[_-]/g, '');

/**
 * Words for keys an object of the request does not know, with the known key each is a near
 * miss of (`dryrun` → "did you mean `dryRun`?"). The producer fixes its body and redrives.
 */
export function unknownFieldsMessage(keys: readonly string[], known: readonly string[]): string {
  const words = keys.map((key) => {
    const meant = known.find((k) => nearKey(k) === nearKey(key));
    return meant ? `\`${key}\` (did you mean \`${meant}\`?)` : `\`${key}\``;
  });
  return `unknown field${keys.length > 1 ? 's' : ''} ${words.join(', ')}: the worker acts only on fields it knows`;
}

/**
 * A strict object: an unknown key is an issue that names it (and the near miss it is of).
 * No field was ever removed from the request (`git log -p` of this file), so a held body an
 * older worker stored holds only known fields; a field retired some day must stay here, known
 * and ignored, for the bodies the release tick still re-sends.
 */
function strict<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? unknownFieldsMessage(issue.keys, known) : undefined,
  });
}

function buildSchemas() {
  /** Identifiers we pass to the Console API: bounded, printable, no whitespace or control characters. */
  const identifier = z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(200),
      z.regex(/^[^\s\p{Cc}]+$/u, 'must not contain whitespace or control characters'),
    );

  const requester = strict({
    source: z.enum(REQUESTER_SOURCES),
    id: z.string().check(z.minLength(1), z.maxLength(200)),
  });

  const common = {
    version: z.literal(1),
    requestedBy: requester,
    requestedAt: z.iso.datetime({ offset: true }),
    reason: z.optional(z.string().check(z.maxLength(2000))),
    /** A stable id chosen by the producer; the worker makes one from the message id when absent. */
    requestId: z.optional(requestIdSchema()),
    /** Set by the webhook on an Approve click's copy: the id of the held question it answers. */
    answers: z.optional(requestIdSchema()),
    /** `issuedAt`: when Slack issued the URL (the webhook's receipt); it takes posts for 30 minutes. */
    reply: z.optional(
      strict({
        slackResponseUrl: z.optional(z.url()),
        issuedAt: z.optional(z.iso.datetime({ offset: true })),
      }),
    ),
    dryRun: z.optional(z.boolean()),
  };

  const approvePhase = strict({
    ...common,
    action: z.literal('approve_phase'),
    triggerId: identifier,
    phaseId: identifier,
  });

  const disableGroups = strict({
    ...common,
    action: z.literal('disable_groups'),
    experimentId: identifier,
    groupNames: z
      .array(z.string().check(z.minLength(1), z.maxLength(200)))
      .check(z.minLength(1), z.maxLength(50)),
  });

  const archiveConfig = strict({
    ...common,
    action: z.literal('archive_config'),
    configId: identifier,
    reason: z.string().check(z.minLength(1), z.maxLength(2000)),
    force: z.optional(z.boolean()),
  });

  const actionRequest = z.discriminatedUnion('action', [approvePhase, disableGroups, archiveConfig]);
  return { identifier, requester, approvePhase, disableGroups, archiveConfig, actionRequest };
}

type ActionRequestSchemas = ReturnType<typeof buildSchemas>;

/**
 * The action request schemas, built on the first call and shared afterwards: `identifier`
 * (identifiers we pass to the Console API: bounded, printable, no whitespace or control
 * characters), `requester`, one per action, and `actionRequest`, the union of the three.
 */
export const actionRequestSchemas: () => ActionRequestSchemas = once(buildSchemas);

export type Requester = z.infer<ActionRequestSchemas['requester']>;
export type ActionRequest = z.infer<ActionRequestSchemas['actionRequest']>;
export type ApprovePhaseRequest = z.infer<ActionRequestSchemas['approvePhase']>;
export type DisableGroupsRequest = z.infer<ActionRequestSchemas['disableGroups']>;
export type ArchiveConfigRequest = z.infer<ActionRequestSchemas['archiveConfig']>;
export type ActionName = ActionRequest['action'];
export const ACTION_NAMES = [
  'approve_phase',
  'disable_groups',
  'archive_config',
] as const satisfies readonly ActionName[];

export type ParsedActionRequest = { ok: true; request: ActionRequest } | { ok: false; error: string };

/**
 * The request id a message body claims, when it has the request id's own syntax (at most 128
 * letters, digits and `. _ : @ / -`: nothing a log line must escape), else undefined. For a body
 * that is not a valid request it is a claim, never the request's id: the worker logs it beside
 * the id it gives the message (`sqs:<message id>`), as `claimedRequestId`, so the saved query "one
 * request by id" finds the line by the id its producer knows.
 */
export function claimedRequestId(body: string): string | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  const id =
    typeof json === 'object' && json !== null ? (json as { requestId?: unknown }).requestId : undefined;
  return typeof id === 'string' && requestIdSchema().safeParse(id).success ? id : undefined;
}

/** Parses a raw message body. Never throws: a bad body yields the reason in words, with paths. */
export function parseActionRequest(body: string): ParsedActionRequest {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return { ok: false, error: `body is not JSON: ${(error as Error).message}` };
  }
  const result = actionRequestSchemas().actionRequest.safeParse(json);
  if (!result.success) return { ok: false, error: formatIssues(result.error.issues) };
  return { ok: true, request: result.data };
}

/** `source:id`, the form policies match requesters in (`slack:U123`, `ci:*`). */
export function requesterKey(requester: Requester): string {
  return `${requester.source}:${requester.id}`;
}

/** What the request acts on, in words and as a stable key part (used in effect keys and logs). */
export function actionTarget(request: ActionRequest): string {
  switch (request.action) {
    case 'approve_phase':
      return `trigger ${request.triggerId} phase ${request.phaseId}`;
    case 'disable_groups':
      return `experiment ${request.experimentId} groups ${[...request.groupNames].sort().join(',')}`;
    case 'archive_config':
      return `config ${request.configId}`;
  }
}

/**
 * Whose request is under an id: the requester and the change. A dry run of a change is another
 * request than the change itself (a copy of one must never replace or end the other).
 */
export function requestOwner(
  request: ActionRequest,
  key = effectKey(request),
): { requester: string; effectKey: string; formerEffectKey?: string } {
  const mark = (k: string) => (request.dryRun ? `${k}~dry-run` : k);
  // Finals written before an id's key took its digest form name it by the former key (former-effect-key.ts).
  const former = formerEffectKey(request);
  return {
    requester: requesterKey(request.requestedBy),
    effectKey: mark(key),
    ...(former !== key ? { formerEffectKey: mark(former) } : {}),
  };
}

/** What an effect key is made of: the action and its target (the chaos harness builds one from a logged call). */
export type EffectTarget =
  | Pick<ApprovePhaseRequest, 'action' | 'triggerId' | 'phaseId'>
  | Pick<DisableGroupsRequest, 'action' | 'experimentId' | 'groupNames'>
  | Pick<ArchiveConfigRequest, 'action' | 'configId'>;

/**
 * The identity of the mutation a request would cause: action + target (+ phase). Two requests
 * with the same effect key must never mutate twice (the worker claims it before calling the
 * API), and a human's veto is recorded against it. No key is another key followed by `#dry-run`
 * (a dry run's own veto, src/policy/veto-key.ts): an id holding '#' goes by a digest form.
 */
export function effectKey(request: ActionRequest | EffectTarget): string {
  switch (request.action) {
    case 'approve_phase':
      // Ids may hold '#' (the identifier schema forbids only whitespace and control characters):
      // joined with '#', trigger "a#b" phase "c" and trigger "a" phase "b#c" had one key (one claim,
      // one veto). Such ids go by a digest of the exact pair, under a prefix of its own; ordinary
      // ids keep their key, so claims and vetoes stored before still match.
      if (request.triggerId.includes('#') || request.phaseId.includes('#'))
        return `approve_phase~sha256#${createHash('sha256')
          .update(JSON.stringify([request.triggerId, request.phaseId]))
          .digest('hex')}`;
      return `approve_phase#${request.triggerId}#${request.phaseId}`;
    case 'disable_groups': {
      const sorted = [...request.groupNames].sort();
      // An experiment id with '#' made a key one '#' longer than any ordinary key, the form of a
      // dry run's own veto (`<effect>#dry-run`, src/policy/veto-key.ts): experiment "e#g" group
      // "dry-run" had the key of the veto on a dry run of experiment "e" group "g". Such an id goes
      // by a digest of the exact pair, under a prefix of its own; ordinary ids keep their key.
      if (request.experimentId.includes('#'))
        return `disable_groups~pair-sha256#${createHash('sha256')
          .update(JSON.stringify([request.experimentId, sorted]))
          .digest('hex')}`;
      // Names are free text: joined with commas, ["a,b"] and ["a", "b"] (two different changes) had
      // one key, and the second was told "Already done". A name holding the separators goes by a
      // digest of the exact list, under a prefix of its own; ordinary names keep their key.
      if (sorted.some((name) => /[,#]/.test(name)))
        return `disable_groups~list-sha256#${request.experimentId}#${createHash('sha256').update(JSON.stringify(sorted)).digest('hex')}`;
      const groups = sorted.join(',');
      const key = `disable_groups#${request.experimentId}#${groups}`;
      // It keys DynamoDB items (effect claim, veto): past 1 KB the groups go by their digest, so a
      // long valid list (50 names of 200 characters) never exceeds the 2 KB partition key.
      if (Buffer.byteLength(key) <= 1024) return key;
      // Its own prefix: no plain key (`disable_groups#...`) can be the same string.
      return `disable_groups~sha256#${request.experimentId}#${createHash('sha256').update(groups).digest('hex')}`;
    }
    case 'archive_config':
      // As above: config "x#dry-run" had the key of the veto on a dry run of config "x". An id
      // with '#' goes by its digest, under a prefix of its own; ordinary ids keep their key.
      if (request.configId.includes('#'))
        return `archive_config~sha256#${createHash('sha256').update(request.configId).digest('hex')}`;
      return `archive_config#${request.configId}`;
  }
}
