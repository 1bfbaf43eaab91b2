/**
 * What an Approve or Deny click works with once it is parsed, allowed and matched to its open
 * question (interactions.ts), and the two shapes of its answer: the question's message replaced
 * for everyone, or a refusal shown only to the person who clicked.
 */
import type { ActionRequest } from '../actions/request.js';
import { ephemeral, problem, type SlackReply, section } from './blocks.js';
import type { WebhookDeps } from './deps.js';
import type { replier } from './reply.js';

export interface InteractionContext {
  /** The form field `payload`. */
  payload: string | undefined;
  retry: boolean;
  startedAt: number;
}

export interface InteractionResult {
  outcome: string;
  userId?: string;
  /** The id of the request this click queued (approve) or concerned (deny). */
  requestId?: string;
  /** What went wrong underneath, for the request's log line. */
  error?: unknown;
  /** The reply to Slack was late or not delivered (reply.ts). */
  warning?: string;
  replyError?: unknown;
}

/** What a click works with once it is parsed and allowed. */
export interface Click {
  deps: WebhookDeps;
  ctx: InteractionContext;
  /** The held copy of the asked request (open-question.ts). */
  original: ActionRequest & { requestId: string };
  userId: string;
  responseUrl: string | undefined;
  /** Reads and writes give up here; the reply to Slack a little later. */
  deadline: number;
  now: () => number;
  reply: ReturnType<typeof replier>;
  /** What the request does, in mrkdwn (ids in code spans, as the worker's posts show them). */
  what: string;
  /** A dry run's question: its replacement must say so (the question's own words are gone with it). */
  dryRun: boolean;
}

export function replaced(text: string, mrkdwn: string): SlackReply {
  return { replace_original: true, text, blocks: [section(mrkdwn)] };
}

export function refusal(text: string): SlackReply {
  return { ...problem(text), replace_original: false };
}

/**
 * A refusal that names people as mentions: `mrkdwn` is built from our own records and escaped by
 * its maker (refusal() neutralizes all its text, so a mention would show as `<@U…>`); `text` is the
 * plain fallback.
 */
export function refusalNaming(text: string, mrkdwn: string): SlackReply {
  return { ...ephemeral(text, [section(`:warning: ${mrkdwn}`)]), replace_original: false };
}
