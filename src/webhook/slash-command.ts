/**
 * One verified slash command, from its form fields to the reply: parse, authorize, then read,
 * enqueue, or switch the pause flag. Usage errors and refusals are ordinary replies (HTTP
 * 200, ephemeral), so the person always reads why.
 */
import { allowedCommands, authorize } from './authorize.js';
import { code, contextLine, ephemeral, escapeMrkdwn, problem, type SlackReply, section } from './blocks.js';
import { type Command, type CommandName, commandSpec, parseCommand } from './commands.js';
import { settleBy } from './deadline.js';
import type { WebhookDeps } from './deps.js';
import { firstDeliveryMark } from './first-delivery.js';
import { answerCancel, answerHeld } from './held.js';
import {
  buildActionRequest,
  enqueue,
  notPausedReply,
  notQueuedReply,
  pauseReply,
  queuedOnRetryReply,
  queuedReply,
  responseUrlOf,
  retryReply,
} from './mutations.js';
import { answerRead } from './reads.js';
import { WHERE_OUTCOME_HELP } from './where-outcome.js';
import { answerWhy } from './why.js';

export interface SlashContext {
  teamId: string;
  userId: string;
  text: string;
  slash: string;
  responseUrl: string | undefined;
  requestId: string;
  /** Slack's X-Slack-Retry-Num was present. */
  retry: boolean;
  /** Epoch ms the request arrived; deadlines count from here. */
  startedAt: number;
}

export interface SlashResult {
  reply: SlackReply;
  outcome: string;
  command?: CommandName;
  /** The id of the queued action request, when one was queued. */
  queuedRequestId?: string;
  /** What went wrong underneath, for the request's log line. */
  error?: unknown;
}

function helpReply(deps: WebhookDeps, ctx: SlashContext): SlackReply {
  const allowed = allowedCommands(deps.policy, ctx);
  const lines = allowed.map((spec) => `${code(`${ctx.slash} ${spec.usage}`)} – ${spec.summary}`);
  const readOnly = allowed.every((spec) => spec.grant === undefined);
  return ephemeral(`What you can do with ${ctx.slash}`, [
    section(`*What you can do with ${escapeMrkdwn(ctx.slash)}*\n${lines.join('\n')}`),
    contextLine(
      readOnly
        ? 'You can read. Changes need a grant in the policy file (`chat.grants`).'
        : WHERE_OUTCOME_HELP,
    ),
  ]);
}

export async function handleSlashCommand(deps: WebhookDeps, ctx: SlashContext): Promise<SlashResult> {
  const now = deps.now ?? Date.now;
  const parsed = parseCommand(ctx.text);
  if (!parsed.ok) {
    const usage = parsed.usage ? `\nUsage: ${code(`${ctx.slash} ${parsed.usage}`)}` : '';
    const reply = ephemeral(`${parsed.error}`, [
      section(`:grey_question: ${escapeMrkdwn(parsed.error)}${usage}`),
      contextLine(`${code(`${ctx.slash} help`)} lists what you can do.`),
    ]);
    return { reply, outcome: 'usage_error', ...(parsed.name ? { command: parsed.name } : {}) };
  }
  const command: Command = parsed.command;
  const spec = commandSpec(command.name);
  const allowed = authorize(deps.policy, ctx, spec.grant);
  if (!allowed.ok)
    return { reply: problem(allowed.message), outcome: allowed.outcome, command: command.name };

  const deadline = ctx.startedAt + (deps.deadlineMs ?? 2500);
  switch (command.name) {
    case 'help':
      return { reply: helpReply(deps, ctx), outcome: 'ok', command: command.name };
    case 'role':
    case 'segment':
    case 'segments':
    case 'metrics':
    case 'events':
    case 'status': {
      const read = await answerRead(
        {
          console: deps.console,
          policy: deps.policy,
          status: {
            readPause: deps.pause.read,
            ...(deps.queueDepth ? { queueDepth: deps.queueDepth } : {}),
            ...(deps.held?.count ? { heldCount: deps.held.count.bind(deps.held) } : {}),
          },
          userId: ctx.userId,
          slash: ctx.slash,
          deadline,
          now,
        },
        command,
      );
      // The failure's error goes on the request line (logged at warn): the platform's, or the state table's as for pause and held.
      const failed = read.error === undefined ? {} : { error: read.error };
      return { reply: read.reply, outcome: read.outcome, command: command.name, ...failed };
    }
    case 'why': {
      const why = await answerWhy(deps, command.requestId, deadline, now);
      return { ...why, command: command.name };
    }
    case 'held':
      return { ...(await answerHeld(deps, command.after, ctx.slash, deadline, now)), command: command.name };
    case 'cancel':
      return { ...(await answerCancel(deps, ctx, command, deadline, now)), command: command.name };
    case 'approve':
    case 'disable-groups':
    case 'archive':
      return queueMutation(deps, ctx, command, deadline, now);
    case 'pause':
    case 'resume':
      return switchPause(deps, ctx, command, deadline, now);
  }
}

type MutationCommand = Extract<Command, { name: 'approve' | 'disable-groups' | 'archive' }>;
type PauseCommand = Extract<Command, { name: 'pause' | 'resume' }>;

/** Queues a mutation as the person's request ("queued" at once; the worker posts the outcome). */
async function queueMutation(
  deps: WebhookDeps,
  ctx: SlashContext,
  command: MutationCommand,
  deadline: number,
  now: () => number,
): Promise<SlashResult> {
  // A Slack retry carries the same request id. Queued already: answer, queue nothing. Its
  // first delivery never reached the queue (or we cannot tell): queue it now with that id;
  // were it a second copy after all, the worker recognises it by the id and acts once.
  if (ctx.retry) {
    if ((await firstDeliveryMark(deps, ctx.requestId, deadline, now)) !== undefined)
      return { reply: retryReply(ctx.requestId), outcome: 'retry_ignored', command: command.name };
  }
  const request = buildActionRequest(command, {
    userId: ctx.userId,
    requestId: ctx.requestId,
    requestedAt: new Date(now()),
    responseUrl: responseUrlOf(ctx.responseUrl, deps.replyOrigins),
  });
  const sent = await enqueue(deps, request, deadline, now);
  if (!sent.ok) {
    return {
      reply: notQueuedReply(request, sent.outcome),
      outcome: sent.outcome,
      command: command.name,
      error: sent.error,
    };
  }
  const marked = await settleBy(
    deps.queued.mark(ctx.requestId, sent.messageId, new Date(now())),
    deadline,
    now,
  );
  const queued: SlashResult = {
    reply: ctx.retry
      ? queuedOnRetryReply(request, ctx.slash, deps.policy)
      : queuedReply(request, ctx.slash, deps.policy),
    outcome: ctx.retry ? 'retry_queued' : 'queued',
    command: command.name,
    queuedRequestId: ctx.requestId,
  };
  // Queued all the same; only a later retry of it could be queued once more (and acted on once).
  // Assigned, not spread: a spread costs microseconds on Node 20 (see buildActionRequest).
  if (marked.settled && 'error' in marked) queued.error = marked.error;
  return queued;
}

/** `pause` / `resume`: the switch in the state table, answered in the channel with who and why. */
async function switchPause(
  deps: WebhookDeps,
  ctx: SlashContext,
  command: PauseCommand,
  deadline: number,
  now: () => number,
): Promise<SlashResult> {
  const paused = command.name === 'pause';
  const reason = command.name === 'pause' ? command.reason : undefined;
  // A retry of a switch its first delivery wrote is only answered: written again, it would undo a
  // switch another person made in between (a resume retried after an incident's pause). A retry
  // whose first delivery wrote nothing (or that cannot tell) writes it now, as a mutation is queued.
  if (ctx.retry) {
    if ((await firstDeliveryMark(deps, ctx.requestId, deadline, now)) !== undefined)
      return {
        reply: switchRetryReply(command.name, ctx.requestId),
        outcome: 'retry_ignored',
        command: command.name,
      };
  }
  const written = await settleBy(
    deps.pause.write({ paused, by: `slack:${ctx.userId}`, reason, at: new Date(now()) }),
    deadline,
    now,
  );
  if (!written.settled || 'error' in written) {
    return {
      reply: problem(
        written.settled
          ? `Could not ${command.name}: the state table did not answer. Nothing was changed; please try again.`
          : `The state table did not confirm the ${command.name} in time. Check with \`${ctx.slash} status\` before trying again.`,
      ),
      outcome: written.settled ? 'state_unreachable' : 'state_unconfirmed',
      command: command.name,
      ...(written.settled ? { error: written.error } : {}),
    };
  }
  // Marked like a queued request (the same family, so no new grant): only a retry reads it.
  const marked = await settleBy(
    deps.queued.mark(ctx.requestId, `switch:${command.name}`, new Date(now())),
    deadline,
    now,
  );
  // What the switch was before, when the store tells it: a `resume` of a switch that was off told
  // the whole channel that this person resumed console-autopilot, though nothing had been paused.
  const before = written.value;
  return {
    reply:
      !paused && before?.paused === false
        ? notPausedReply(ctx.slash)
        : pauseReply(paused, ctx.userId, reason, before?.paused ? before : undefined),
    outcome: 'ok',
    command: command.name,
    ...(marked.settled && 'error' in marked ? { error: marked.error } : {}),
  };
}

/** A Slack retry of a `pause`/`resume` already written: answered to the person only, nothing written. */
function switchRetryReply(name: 'pause' | 'resume', requestId: string): SlackReply {
  return ephemeral(
    `Slack sent this ${name} again (request id ${requestId}); it was already done, so it was not done a second time.`,
  );
}
