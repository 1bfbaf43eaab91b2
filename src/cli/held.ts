/**
 * `autopilot held [--json]` lists what is held (id, action, target, requester, why, next look);
 * `autopilot cancel <requestId> --reason …` cancels one held request as `cli:<user>`, through
 * the policy (src/policy/cancel-grant.ts). Both read the state table: --local (the running
 * local stack), --table NAME or STATE_TABLE_NAME.
 */

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { optionalEnv } from '../config/env.js';
import { mayCancel } from '../policy/cancel-grant.js';
import { postToSlack } from '../slack/post.js';
import { readFinal } from '../state/audit.js';
import { type HeldRecord, listHeld, nextLookText, readHeld } from '../state/held.js';
import { whyText } from '../state/held-answer.js';
import type { StateTable } from '../state/table.js';
import { cancelHeldRequest } from '../worker/cancel.js';
import { endCancelledNow } from '../worker/cancel-now.js';
import { parse } from './args.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, errorText, printable, printHelp, renderTable } from './io.js';
import { localEndpoints } from './local-endpoints.js';
import { policyFileOf, readPolicyArg } from './policy-input.js';
import { stateTableFor } from './state-table.js';

export const HELD_USAGE = `Usage: autopilot held [--json] [--local | --table NAME]
  What is held: request id, action, target, requester, why it waits, when it is looked at again.`;

export const CANCEL_USAGE = `Usage: autopilot cancel <requestId> --reason <text> [--policy FILE] [--as USER] [--local | --table NAME]
  Ends a held request as cancelled (audited; the requester and, with SLACK_WEBHOOK_URL, the channel
  are told; with --local, the stack's channel, never SLACK_WEBHOOK_URL's); it is never executed later.
  You cancel as cli:<user> (--as, else $USER), which the policy (--policy, else AUTOPILOT_POLICY,
  else policy.json) must let ask for the same action.
  A request already cancelled (by anyone) is said so, exit 0. Exit 3: the cancel is recorded, but ending the request at once failed; the release tick ends it
  within a minute (it is never executed).`;

/** `cancel`'s own exit code: the cancel is recorded, but the request could not be ended at once (the tick ends it). */
export const EXIT_CANCEL_NOT_ENDED = 3;

/** A thrown error as the CLI shows one (its name and message), scrubbed of secrets. */
export function heldRows(list: HeldRecord[]): string[][] {
  return list.map((h) => [h.requestId, h.action, h.target, h.requester, whyText(h, true), nextLookText(h)]);
}

export async function heldCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    { json: { type: 'boolean' }, local: { type: 'boolean' }, table: { type: 'string' } },
    HELD_USAGE,
    { min: 0, max: 0 },
  );
  if (help) return printHelp(io, HELD_USAGE);
  const table = stateTableFor(io, values, HELD_USAGE);
  const list = await listHeld(table).catch((error: unknown) => {
    throw new CommandError(`cannot read the held requests of ${table.tableName}: ${errorText(error)}`);
  });
  if (values.json)
    io.stdout(
      JSON.stringify(
        list.map(({ request: _r, ...rest }) => rest),
        null,
        2,
      ),
    );
  else if (list.length === 0) io.stdout('Nothing is held.');
  else
    io.stdout(
      `${renderTable(['request id', 'action', 'target', 'requester', 'why', 'next look'], heldRows(list))}\n${list.length} held.`,
    );
  return EXIT.ok;
}

/**
 * The channel's incoming webhook (`SLACK_WEBHOOK_URL`, optional), checked before anything is
 * cancelled: a bad value must not turn a done cancel into a failed command. Never printed: the
 * URL is a credential.
 */
function channelOf(
  env: Readonly<Record<string, string | undefined>>,
): { url: string; origin: string } | undefined {
  const url = optionalEnv('SLACK_WEBHOOK_URL', env);
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
    throw new CommandError('SLACK_WEBHOOK_URL is not an http(s) URL; nothing was cancelled');
  return { url, origin: parsed.origin };
}

/** The local stack's channel: its Slack receiver's (src/local/slack-receiver.ts `channelUrl`). */
function localChannel(receiver: string | undefined): { url: string; origin: string } | undefined {
  return receiver ? { url: `${receiver}/channel`, origin: new URL(receiver).origin } : undefined;
}

/** Refusals that never mean the request is cancelled: the policy's, and a request being executed. */
const REFUSED_ANEW: ReadonlySet<string> = new Set(['not-allowed', 'executing']);

/**
 * The line for a request a cancel already took: marked (still held until the tick or the worker
 * ends it), or ended as cancelled (its final names the canceller: src/worker/cancel.ts
 * `cancelReason`). Undefined when it is not cancelled, or that cannot be read (the refusal stands).
 */
async function alreadyCancelled(table: StateTable, requestId: string): Promise<string | undefined> {
  const again = 'nothing was done a second time.';
  try {
    const mark = (await readHeld(table, requestId))?.cancel;
    if (mark)
      return `${requestId} is already cancelled (by ${mark.by} at ${mark.at}${mark.reason ? `: “${mark.reason}”` : ''}); the release tick ends it within a minute: ${again}`;
    const final = await readFinal(table, requestId);
    if (final?.result !== 'cancelled') return undefined;
    const by = /^cancelled by (\S+)/.exec(final.reason)?.[1];
    return `${requestId} is already cancelled (${by ? `by ${by}, ` : ''}ended at ${final.at}): ${again}`;
  } catch {
    return undefined;
  }
}

export async function cancelCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parse(
    args,
    {
      reason: { type: 'string' },
      policy: { type: 'string' },
      as: { type: 'string' },
      local: { type: 'boolean' },
      table: { type: 'string' },
    },
    CANCEL_USAGE,
    { min: 1, max: 1 },
  );
  if (help) return printHelp(io, CANCEL_USAGE);
  const requestId = positionals[0] as string;
  const reason = typeof values.reason === 'string' ? values.reason.trim() : '';
  if (reason === '') throw new UsageError('say why: --reason <text>', CANCEL_USAGE);
  const user = (values.as as string | undefined) ?? io.env.USER;
  if (!user || !/^[A-Za-z0-9_.@-]{1,64}$/.test(user))
    throw new UsageError('who cancels? give --as USER (letters, digits, _ . @ -)', CANCEL_USAGE);
  // --local: the running stack's policy decides, as its worker would (--policy still names another).
  const stackPolicy = values.local ? localEndpoints(io).policyFile : undefined;
  const policyFile = (values.policy as string | undefined) ?? stackPolicy;
  const policy = readPolicyArg(policyFileOf(io.env, policyFile), (file) =>
    readFileSync(resolve(io.cwd, file), 'utf8'),
  );
  const table = stateTableFor(io, values, CANCEL_USAGE);
  const by = `cli:${user}`;
  const now = io.now();
  // --local: replies go to the stack's Slack receiver, whose origin the stack lists in the
  // webhook's and worker's SLACK_REPLY_ORIGINS; refused here, the requester never heard of the cancel.
  const receiver = values.local ? localEndpoints(io).slackReceiverUrl : undefined;
  // --local: the stack's channel (its receiver's, where its worker tells every end), never the
  // shell's SLACK_WEBHOOK_URL, which names the deployed stack's: a real team channel.
  const channel = values.local ? localChannel(receiver) : channelOf(io.env);
  const allowedOrigins = [channel?.origin, receiver ? new URL(receiver).origin : undefined].filter(
    (origin): origin is string => origin !== undefined,
  );
  const outcome = await cancelHeldRequest(
    { table, mayCancel: (held) => mayCancel(policy, by, held.request, now) },
    { requestId, by, reason, now },
  );
  if (!outcome.ok) {
    // A repeat (a script's retry, another operator) of a cancel that took is done as asked, as
    // chat's retry answers "already taken: it is cancelled". Refused otherwise.
    const already = REFUSED_ANEW.has(outcome.code) ? undefined : await alreadyCancelled(table, requestId);
    if (already !== undefined) {
      io.stdout(printable(already));
      return EXIT.ok;
    }
    // A refusal may quote an end already written (the platform's message, a requester id): printable.
    throw new CommandError(printable(outcome.message));
  }
  const ending = endCancelledNow(table, outcome.held, outcome.reason, now, {
    tell: async (urls, message) => {
      for (const url of urls) {
        // The channel URL is the operator's own setting; a reply URL must be Slack's (or the local stack's receiver).
        const posted = await postToSlack(url, message, { allowedOrigins });
        // Slack's answer is text from outside: shown printable.
        if (!posted.ok)
          io.stderr(printable(`warning: could not tell ${new URL(url).origin}: ${posted.error}`));
      }
    },
    ...(channel ? { channelUrl: async () => channel.url } : {}),
    // The table's error, as the CLI shows a thrown one (its name and message), scrubbed: the cancel's own error follows.
    warn: (message, { error }) => io.stderr(printable(`warning: ${message}: ${errorText(error)}`)),
  });
  // The mark is written: the request is cancelled whatever fails now (never executed, no other end
  // recorded), and the release tick sends it back to be ended at once. Said so, with its own exit code.
  const ended = await ending.catch((error: unknown) => {
    io.stdout(
      printable(
        `${requestId} is cancelled (${outcome.held.action} ${outcome.held.target}): ${outcome.reason}. The cancel is recorded, but ending it now failed: the release tick ends it within a minute, and the worker tells the requester and the channel then (\`autopilot held\` shows it until then).`,
      ),
    );
    io.stderr(printable(`autopilot: could not end ${requestId} now: ${errorText(error)}`));
    return undefined;
  });
  if (!ended) return EXIT_CANCEL_NOT_ENDED;
  // Another end was recorded first (a worker's denial racing this cancel): that one was told, and is
  // the truth. One ending it as cancelled by this mark (the tick's end of a stuck wait) is this cancel.
  if (!ended.ended && ended.final?.result !== 'cancelled')
    throw new CommandError(
      printable(
        `${requestId} ended as ${ended.final?.result ?? 'something else'} before the cancel took effect${ended.final ? `: ${ended.final.reason}` : ''}${ended.retold ? ' (that end had not been told: told now)' : ''}`,
      ),
    );
  // The target is the queue sender's text (group names are any string): shown printable, as `held` shows it.
  io.stdout(
    printable(`Cancelled ${requestId} (${outcome.held.action} ${outcome.held.target}): ${outcome.reason}`),
  );
  return EXIT.ok;
}
