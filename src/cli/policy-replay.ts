/**
 * `autopilot policy replay --policy new.json [--since 30d] [--local | --table NAME] [--json]`:
 * what a policy change would have done to the requests of the audit trail. Read-only: it scans
 * the state table's audit records and never writes to the table or the queue.
 */
import { policyDigest } from '../policy/digest.js';
import {
  outcomeLabel,
  type PolicyTally,
  type ReplayReport,
  type ReplayRow,
  replayDecisions,
} from '../policy/replay.js';
import { delayRange, delayWords } from '../policy/replay-follow.js';
import { countedFrom } from '../policy/replay-records.js';
import { scanAuditSince } from '../state/audit-scan.js';
import type { StateTable } from '../state/table.js';
import { parse } from './args.js';
import { sinceInstant } from './durations.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, errorText, printHelp, renderTable } from './io.js';
import { readFromCwd, readPolicyArg } from './policy-input.js';
import { stateTableFor } from './state-table.js';

export const POLICY_REPLAY_USAGE = `Usage:
  autopilot policy replay --policy <new.json> [--since 30d] [--local | --table NAME] [--json]
      Decide every request of the audit trail since --since (30d, 24h, 90m or an ISO instant;
      default 30d) again under the new policy, at its original time and with the pause and
      vetoes it met then, and print what would change. The decisions earlier in the hour and
      day of --since are read too and count toward maxPerHour and maxPerDay, as the worker
      counted them (not shown). A new deferral or question the old
      policy did not make is followed, through the worker's looks at it, to its end or to now
      (approve → defer → approve: after 2h; approve → ask → deny (maxDeferHours) if nobody
      answers). Also counts the recorded decisions made under the new policy itself, under
      another, and under an unknown one (records older than policyDigest). Read-only.
      --local: the running local stack's table (.local/endpoints.json); otherwise --table or
      STATE_TABLE_NAME with the usual AWS credentials and region.`;

/**
 * Which policies made the recorded decisions: a record made under the replayed policy itself
 * changes only by what the replay cannot see (counters, answers); records older than the field are unknown.
 */
function decidedUnderWords({ thisPolicy, otherPolicy, unknown }: PolicyTally, digest: string): string {
  return (
    `Recorded decisions by the policy that made them: ${thisPolicy} under this one (${digest}), ` +
    `${otherPolicy} under another` +
    (unknown > 0 ? `, ${unknown} unknown (recorded before the policy was kept)` : '') +
    '.'
  );
}

function render(report: ReplayReport, policyFile: string, since: Date, digest: string, from: Date): string {
  const kinds = Object.entries(report.changes).sort((a, b) => b[1] - a[1]);
  const lines = [
    `Replayed ${report.replayed} decision(s) since ${since.toISOString()} under ${policyFile}: ` +
      `${report.unchanged} unchanged, ${report.rows.length} changed, ${report.notReplayable} not replayable` +
      (report.alreadyEnded > 0
        ? `; ${report.alreadyEnded} later record(s) of requests the new policy had already ended`
        : '') +
      (report.alreadyDone > 0
        ? `; ${report.alreadyDone} request(s) for a change the new policy had already made for another request (told as done, not decided)`
        : '') +
      (report.laterLooks > 0
        ? `; ${report.laterLooks} later look(s) at requests the new policy had already deferred or asked about (not decided again)`
        : '') +
      (report.answers > 0
        ? `; ${report.answers} person's answer(s) to a question (not a policy decision) not decided again`
        : '') +
      (report.stuckExpired > 0
        ? `; ${report.stuckExpired} stuck wait(s) the release tick ended at their expiry (not a policy decision) not decided again`
        : '') +
      '.',
    ...kinds.map(([kind, count]) => {
      const delays = report.delays[kind];
      return `  ${kind}: ${count}${delays ? ` (${delayRange(delays)})` : ''}`;
    }),
    decidedUnderWords(report.decidedUnder, digest),
    ...(report.countedBefore > 0
      ? [
          `Counted toward the limits of the hour and day of --since: ${report.countedBefore} earlier decision(s) ` +
            `from ${from.toISOString()} (not shown).`,
        ]
      : []),
  ];
  if (report.rows.length > 0) {
    // A column for how followed waits ended, only when there are some.
    const followed = report.rows.some((r) => r.followed);
    lines.push(
      '',
      renderTable(
        ['request', 'action', 'target', 'requester', 'was', 'would be', ...(followed ? ['in the end'] : [])],
        report.rows.map((r) => [
          r.requestId,
          r.action,
          r.target,
          r.requester,
          `${outcomeLabel(r.old.outcome, r.old.dryRun)} (${r.old.rule})`,
          `${outcomeLabel(r.new.outcome, r.new.dryRun)} (${r.new.rule})`,
          ...(followed ? [inTheEnd(r)] : []),
        ]),
      ),
    );
  }
  return lines.join('\n');
}

/** How a followed wait ended: `approve after 2h (CI)`; empty for a row not followed. */
function inTheEnd(row: ReplayRow): string {
  const end = row.followed;
  if (!end) return '';
  const after = delayWords(end.afterMs);
  const still = end.outcome === 'ask' ? 'still asking a person' : 'still deferred';
  // Short: the table cuts a cell at 60 characters; the count's kind says "not followed further".
  if (end.notFollowed) return `${still} after ${after} (${end.notFollowed})`;
  return `${outcomeLabel(end.outcome, end.dryRun)} after ${after} (${end.rule})`;
}

/** `read` and `table` are injectable so tests can prove the command is read-only. */
export async function policyReplayCommand(
  args: string[],
  io: CliIo,
  inject: { read?: (path: string) => string; table?: StateTable } = {},
): Promise<number> {
  const { values, help } = parse(
    args,
    {
      policy: { type: 'string' },
      since: { type: 'string' },
      local: { type: 'boolean' },
      table: { type: 'string' },
      json: { type: 'boolean' },
    },
    POLICY_REPLAY_USAGE,
    { min: 0, max: 0 },
  );
  if (help) return printHelp(io, POLICY_REPLAY_USAGE);
  if (typeof values.policy !== 'string')
    throw new UsageError('--policy <new.json> is required', POLICY_REPLAY_USAGE);
  const policy = readPolicyArg(values.policy, inject.read ?? readFromCwd(io));
  const since = sinceInstant((values.since as string | undefined) ?? '30d', io.now(), POLICY_REPLAY_USAGE);
  const table = inject.table ?? stateTableFor(io, values, POLICY_REPLAY_USAGE);
  // From the start of the hour or day holding --since: the worker counted their earlier approvals.
  const readFrom = countedFrom(policy, since);
  let records: Awaited<ReturnType<typeof scanAuditSince>>;
  try {
    records = await scanAuditSince(table, readFrom);
  } catch (error) {
    throw new CommandError(`cannot read the audit trail of ${table.tableName}: ${errorText(error)}`);
  }
  // Up to now: the worker's looks at a wait after now have not happened.
  const digest = policyDigest(policy);
  const report = replayDecisions(policy, records, { until: io.now(), policyDigest: digest, since });
  const json = { since: since.toISOString(), countedFrom: readFrom.toISOString(), policyDigest: digest };
  io.stdout(
    values.json
      ? JSON.stringify({ ...json, ...report }, null, 2)
      : render(report, values.policy, since, digest, readFrom),
  );
  return 0;
}
