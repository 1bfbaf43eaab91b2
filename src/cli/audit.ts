/**
 * `autopilot audit [--request ID | --target X | --since 24h] [--json] [--local | --table NAME]`:
 * a request's whole story from the audit trail (every decision with its rule and reason,
 * deferrals, the API call's result, how it ended), or every request about a target, or every
 * request since a time. Read-only.
 */
import { type RequestStory, storyLines, storyOf } from '../audit/story.js';
import { readAudit, readFinal, type StoredAuditRecord } from '../state/audit.js';
import { scanAuditSince } from '../state/audit-scan.js';
import type { StateTable } from '../state/table.js';
import { parse } from './args.js';
import { sinceInstant } from './durations.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, errorText, printable, printHelp, renderTable } from './io.js';
import { stateTableFor } from './state-table.js';

export const AUDIT_USAGE = `Usage:
  autopilot audit --request <requestId> [--json] [--local | --table NAME]
      One request's story: every decision and outcome with its rule and reason, and how it ended.
      Exit 1 when the id has no audit record.
  autopilot audit --target <trg_1 | trg_1/ph_2 | configId | experimentId> [--since 30d] [--json] [...]
      The stories of every request about that target since --since (default 30d).
  autopilot audit --since <24h | 30d | ISO instant> [--json] [...]
      Every request since then, one line each (its latest step).
Reads the state table: --local (the running local stack), --table NAME or STATE_TABLE_NAME.`;

/**
 * A target given on the command line (`trg_1`, `trg_1/ph_2`, a config or experiment id) matches
 * every record whose target names all of its ids ("trigger trg_1 phase ph_2").
 */
function aboutTarget(record: StoredAuditRecord, target: string): boolean {
  const words = new Set(record.target.split(/[\s/,]+/));
  return target.split('/').every((id) => words.has(id));
}

function byRequest(records: StoredAuditRecord[]): Map<string, StoredAuditRecord[]> {
  const out = new Map<string, StoredAuditRecord[]>();
  // Pushed in place: copying a request's list per record was quadratic in its records.
  for (const record of records) {
    const steps = out.get(record.requestId);
    if (steps) steps.push(record);
    else out.set(record.requestId, [record]);
  }
  return out;
}

async function stories(
  table: StateTable,
  values: Record<string, unknown>,
  io: CliIo,
): Promise<RequestStory[]> {
  if (typeof values.request === 'string') {
    const id = values.request;
    const [records, final] = await Promise.all([readAudit(table, id), readFinal(table, id)]);
    return [storyOf(id, records, final)];
  }
  const since = sinceInstant((values.since as string | undefined) ?? '30d', io.now(), AUDIT_USAGE);
  let records = await scanAuditSince(table, since);
  if (typeof values.target === 'string')
    records = records.filter((r) => aboutTarget(r, values.target as string));
  return [...byRequest(records)].map(([id, steps]) => storyOf(id, steps));
}

function render(list: RequestStory[], values: Record<string, unknown>): string {
  if (values.request || values.target) {
    if (list.length === 0) return 'No request about that target in the audit trail for that time.';
    // Lines, not a table: each shown printable as table cells are (requester ids and reasons come from outside).
    return list.map((story) => storyLines(story).map(printable).join('\n')).join('\n\n');
  }
  if (list.length === 0) return 'No request in the audit trail for that time.';
  const rows = list.map((story) => {
    const last = story.steps.at(-1);
    return [
      story.requestId,
      story.action,
      story.target,
      story.requester,
      last?.result ?? '',
      last?.rule ?? '',
      last?.at ?? '',
    ];
  });
  return `${renderTable(['request id', 'action', 'target', 'requester', 'latest', 'rule', 'at'], rows)}\n${list.length} request(s).`;
}

export async function auditCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    {
      request: { type: 'string' },
      target: { type: 'string' },
      since: { type: 'string' },
      json: { type: 'boolean' },
      local: { type: 'boolean' },
      table: { type: 'string' },
    },
    AUDIT_USAGE,
    { min: 0, max: 0 },
  );
  if (help) return printHelp(io, AUDIT_USAGE);
  if (!values.request && !values.target && !values.since)
    throw new UsageError('say what: --request <id>, --target <id> or --since <24h>', AUDIT_USAGE);
  if (values.request && values.target)
    throw new UsageError('--request and --target exclude each other', AUDIT_USAGE);
  // A request's story is always whole: a --since beside it would be ignored, and an operator would
  // read steps from days back as if they fell in that window.
  if (values.request && values.since)
    throw new UsageError(
      '--request shows the whole story and takes no --since (--since goes alone or with --target)',
      AUDIT_USAGE,
    );
  const table = stateTableFor(io, values, AUDIT_USAGE);
  let list: RequestStory[];
  try {
    list = await stories(table, values, io);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new CommandError(`cannot read the audit trail of ${table.tableName}: ${errorText(error)}`);
  }
  // No record under the id: a failure (exit 1, as `dlq delete` for an id it cannot find), not an
  // empty story with exit 0, so that a script can tell "no such request" from a request's story.
  const [only] = list;
  if (values.request && only && only.steps.length === 0 && !only.final)
    throw new CommandError(storyLines(only).map(printable).join('\n'));
  io.stdout(values.json ? JSON.stringify(list, null, 2) : render(list, values));
  return EXIT.ok;
}
