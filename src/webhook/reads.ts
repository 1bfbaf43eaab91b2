/**
 * The read commands (`role`, `segment`, `segments`, `metrics`, `events`, `status`), answered
 * at once through the shared Console API client under one overall deadline: when it passes,
 * every call in flight is aborted and the person reads "the platform is slow, try again"
 * instead of meeting Slack's three-second timeout.
 */

import type { Policy } from '../policy/schema.js';
import { oneLine, quoteLines } from '../slack/mrkdwn.js';
import type { HeldCount } from '../state/held-count.js';
import type { PauseState } from '../state/pause.js';
import { code, contextLine, ephemeral, escapeMrkdwn, fields, header, section, table } from './blocks.js';
import type { Command } from './commands.js';
import { latestEvents, UNREADABLE_EVENT, unreadableEvent } from './latest-events.js';
import { PAGE_SIZE, type PageLike, pagingHint, pastTheEnd } from './paging.js';
import { describeFailure, describeStateFailure, type ReadOutcome, withDeadline } from './read-failures.js';
import { status } from './status.js';

/** The per-call options of the Console API client that reads use. */
export interface ReadCallOptions {
  signal?: AbortSignal;
  deadline?: number;
  maxRetries?: number;
}

type Loose = Record<string, unknown>;

/** The slice of the Console API client (`src/console/`) the reads need. */
export interface ConsoleReads {
  roles: {
    get(
      id: string,
      options?: ReadCallOptions,
    ): Promise<{ name?: string; permissions?: object | null | undefined }>;
  };
  segments: {
    get(id: string, options?: ReadCallOptions): Promise<object>;
    list(
      params?: { page?: number; limit?: number },
      options?: ReadCallOptions,
    ): PromiseLike<PageLike<object>>;
  };
  metrics: {
    listByEvent(
      eventName: string,
      params?: { page?: number; limit?: number },
      options?: ReadCallOptions,
    ): PromiseLike<PageLike<object>>;
  };
  events: {
    list(
      params?: { page?: number; limit?: number },
      options?: ReadCallOptions,
    ): PromiseLike<PageLike<object>>;
  };
}

export interface StatusSources {
  readPause(): Promise<PauseState>;
  /** Approximate number of queued actions; optional (undefined when not cheap to know). */
  queueDepth?: () => Promise<number | undefined>;
  /** How many requests are held and why, capped (optional: shown only when the webhook has the table). */
  heldCount?: () => Promise<HeldCount>;
}

export interface ReadContext {
  console: ConsoleReads;
  policy: Policy;
  status: StatusSources;
  userId: string;
  /** The slash command as typed, for hints (`/autopilot`). */
  slash: string;
  /** Epoch ms by which the answer must be ready. */
  deadline: number;
  now?: () => number;
}

function asString(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * Platform text anyone with project access writes (a role's name, who last modified a segment), as
 * a mrkdwn value: escaped and on one line with its invisible characters shown, so a line break
 * writes no line under ours and a bidi override turns none of our words around.
 */
function flat(value: unknown): string {
  return escapeMrkdwn(oneLine(asString(value)));
}

/** A client SDK wrote it: a time a Date cannot hold (a nanosecond stamp, say) is shown as given. */
function timeOf(epochMs: unknown): string {
  const ms = Number(epochMs);
  return Number.isFinite(ms) && ms > 0 && ms <= 8.64e15
    ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19)
    : asString(epochMs);
}

async function role(ctx: ReadContext, roleId: string, signal: AbortSignal): Promise<ReadOutcome> {
  const found = await ctx.console.roles.get(roleId, { signal, deadline: ctx.deadline });
  const permissions = Object.entries((found.permissions ?? {}) as Record<string, unknown>);
  const granted = permissions.filter(([, v]) => v === true).map(([k]) => k);
  const denied = permissions.filter(([, v]) => v !== true).map(([k]) => k);
  // On one line, invisibles shown: it goes into the header (plain text) and the fallback text.
  const name = oneLine(asString(found.name)) || roleId;
  return {
    outcome: 'ok',
    reply: ephemeral(`Role ${name}: ${granted.length} of ${permissions.length} permissions`, [
      header(`Role ${name}`),
      section(`*Granted (${granted.length})*\n${granted.map((p) => code(p)).join(' ') || '–'}`),
      section(`*Not granted (${denied.length})*\n${denied.map((p) => code(p)).join(' ') || '–'}`),
    ]),
  };
}

async function segment(ctx: ReadContext, segmentId: string, signal: AbortSignal): Promise<ReadOutcome> {
  const s = (await ctx.console.segments.get(segmentId, { signal, deadline: ctx.deadline })) as Loose;
  const rules = s.rules as Loose | undefined;
  const id = oneLine(asString(s.id)) || segmentId;
  const blocks = [
    header(`Segment ${id}`),
    ...fields([
      ['Type', flat(s.type)],
      ['Enabled', s.isEnabled === true ? 'yes' : 'no'],
      ['Count', flat(s.count)],
      ['Tags', Array.isArray(s.tags) ? s.tags.map((t) => code(asString(t))).join(' ') : ''],
      ['Last modified by', flat(s.lastModifierName)],
    ]),
  ];
  // A description may hold lines of its own: each is quoted, so none reads as a line of ours.
  if (asString(s.description)) blocks.push(section(quoteLines(asString(s.description))));
  if (rules && Array.isArray(rules.conditions)) {
    blocks.push(
      table(
        ['field', 'operator', 'target'],
        rules.conditions.map((c: Loose) => [
          asString(c.field ?? c.type),
          asString(c.operator),
          asString(c.targetValue),
        ]),
      ),
    );
  }
  return { outcome: 'ok', reply: ephemeral(`Segment ${id}`, blocks) };
}

async function segments(ctx: ReadContext, page: number, signal: AbortSignal): Promise<ReadOutcome> {
  const result = await ctx.console.segments.list(
    { page, limit: PAGE_SIZE },
    { signal, deadline: ctx.deadline },
  );
  const rows = (result.data as Loose[]).map((s) => [
    s.id,
    s.type,
    s.isEnabled === true ? 'yes' : 'no',
    s.count,
  ]);
  const hint = pagingHint(result, ctx.slash, 'segments', page);
  if (rows.length === 0) {
    const past = pastTheEnd(result, ctx.slash, 'segments', page);
    if (past) return past;
    return {
      outcome: 'ok',
      reply: ephemeral('No segments on this page.', [
        section('No segments on this page.'),
        contextLine(hint),
      ]),
    };
  }
  return {
    outcome: 'ok',
    reply: ephemeral(`Segments, page ${page}`, [
      header('Segments'),
      table(['id', 'type', 'enabled', 'count'], rows),
      contextLine(hint),
    ]),
  };
}

async function metrics(ctx: ReadContext, eventName: string, signal: AbortSignal): Promise<ReadOutcome> {
  const result = await ctx.console.metrics.listByEvent(
    eventName,
    { page: 1, limit: 25 },
    { signal, deadline: ctx.deadline },
  );
  if (result.data.length === 0) {
    const text = `No metrics use the event ${code(eventName)}.`;
    return { outcome: 'ok', reply: ephemeral(text, [section(text)]) };
  }
  const rows = (result.data as Loose[]).map((m) => [
    m.id ?? m.name,
    m.type,
    m.directionality,
    m.isVerified === true ? 'yes' : 'no',
  ]);
  const total = result.pagination?.totalItems;
  const note =
    total !== undefined && total > result.data.length
      ? `Showing ${result.data.length} of ${total}.`
      : `${rows.length} in all.`;
  return {
    outcome: 'ok',
    reply: ephemeral(`Metrics on ${eventName}`, [
      header(`Metrics on ${eventName}`),
      table(['metric', 'type', 'direction', 'verified'], rows),
      contextLine(note),
    ]),
  };
}

async function events(ctx: ReadContext, page: number, signal: AbortSignal): Promise<ReadOutcome> {
  const view = await latestEvents(ctx.console.events, page, PAGE_SIZE, { signal, deadline: ctx.deadline });
  const paging = pagingHint({ data: view.rows, pagination: view.pagination }, ctx.slash, 'events', page);
  // Said in every reply: "newest first" only when it is true (latest-events.ts).
  const hint = view.newestFirst
    ? `Newest first · ${paging}`
    : `In the platform's order: it does not say whether it lists newest or oldest first · ${paging}`;
  if (view.rows.length === 0) {
    const past = pastTheEnd({ data: view.rows, pagination: view.pagination }, ctx.slash, 'events', page);
    if (past) return past;
    return {
      outcome: 'ok',
      reply: ephemeral('No events on this page.', [section('No events on this page.'), contextLine(hint)]),
    };
  }
  const rows = view.rows.map((e) =>
    unreadableEvent(e) ? [UNREADABLE_EVENT] : [timeOf(e.timestamp), e.name, e.source, e.userID, e.value],
  );
  return {
    outcome: 'ok',
    reply: ephemeral(`Events, page ${page}`, [
      header(view.newestFirst ? 'Latest events' : 'Events'),
      table(['time (UTC)', 'name', 'source', 'user', 'value'], rows),
      contextLine(hint),
    ]),
  };
}

/** Answers one read command; never throws for platform trouble. */
export async function answerRead(
  ctx: ReadContext,
  command: Extract<Command, { name: 'role' | 'segment' | 'segments' | 'metrics' | 'events' | 'status' }>,
): Promise<ReadOutcome> {
  const now = ctx.now ?? Date.now;
  const what =
    command.name === 'role'
      ? `role ${code(command.roleId)}`
      : command.name === 'segment'
        ? `segment ${code(command.segmentId)}`
        : command.name === 'metrics'
          ? `event ${code(command.eventName)}`
          : command.name;
  try {
    return await withDeadline(ctx.deadline, now, (signal) => {
      switch (command.name) {
        case 'role':
          return role(ctx, command.roleId, signal);
        case 'segment':
          return segment(ctx, command.segmentId, signal);
        case 'segments':
          return segments(ctx, command.page, signal);
        case 'metrics':
          return metrics(ctx, command.eventName, signal);
        case 'events':
          return events(ctx, command.page, signal);
        case 'status':
          return status(ctx, signal);
      }
    });
  } catch (error) {
    // `status` reads the state table only (the queue depth's failures are shown as "unknown").
    return command.name === 'status' ? describeStateFailure(error) : describeFailure(error, what);
  }
}
