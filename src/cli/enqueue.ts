/**
 * `autopilot enqueue approve <triggerId> <phaseId>`: how CI asks for a phase approval. The
 * request is validated against the public contract before it is sent (the same
 * `sendActionRequest` every producer uses); the SQS message id goes to stdout, alone, for
 * scripts. The requester is always `ci:<id>`: this command cannot speak for a person.
 */
import { type ApprovePhaseRequest, actionRequestSchemas, requestOwner } from '../actions/request.js';
import { createSqsClient, sendActionRequest } from '../queue/actions-queue.js';
import type { StateTable } from '../state/table.js';
import { formatPath } from '../util/zod-issues.js';
import { reservedIdRefusal } from '../worker/admit.js';
import { type Parsed, parse } from './args.js';
import { durationMs } from './durations.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, errorText, printable, printHelp } from './io.js';
import { localEndpoints } from './local-endpoints.js';
import { stateTableFor } from './state-table.js';
import { type SentRequest, WAIT_EXIT, waitForOutcome } from './wait.js';

export const ENQUEUE_USAGE = `Usage:
  autopilot enqueue approve <triggerId> <phaseId> [options]
      Send an approve_phase request to the actions queue; prints the SQS message id.
      The policy decides (e.g. office hours for ci:*); the outcome is in the worker's audit.
Options:
  --reason <text>           why (shown in the audit and replies)
  --requested-by ci:<id>    the CI identity (default ci:$GITHUB_REPOSITORY/$GITHUB_WORKFLOW, else ci:cli)
  --request-id <id>         a stable id: a retried CI job then never approves twice
  --dry-run                 the worker decides, records and replies, and changes nothing
  --print                   validate and print the request; send nothing (not with --wait)
  --queue-url <url>         default: ACTIONS_QUEUE_URL (not with --local)
  --local                   use the running local stack (.local/endpoints.json)
  --wait                    wait for the outcome: exit 0 approved (or already done), 3 denied, cancelled,
                            stale or refused, 4 still held (deferred, asked, paused) or still queued at the
                            timeout (never recorded: backed up, or dead-lettered; see autopilot dlq list),
                            5 may have been done (it ended refused, but an attempt whose answer was lost
                            may have made the change: check before deploying or asking again)
  --timeout <15m>           how long --wait waits (s, m, h or d; default 15m)
  --table <name>            the state table --wait reads (default STATE_TABLE_NAME; --local: the stack's, not both)
Environment: ACTIONS_QUEUE_URL, STATE_TABLE_NAME, AWS_ENDPOINT_URL_SQS / _DYNAMODB (emulators), AWS_REGION
and the usual AWS credentials (--wait also needs dynamodb:GetItem and dynamodb:Query on the table).`;

function defaultRequester(env: CliIo['env']): string {
  const parts = [env.GITHUB_REPOSITORY, env.GITHUB_WORKFLOW].filter(Boolean);
  return parts.length ? parts.join('/') : 'cli';
}

export async function enqueueCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined) throw new UsageError('missing enqueue command: approve', ENQUEUE_USAGE);
  if (sub === 'help' || sub === '--help' || sub === '-h') return printHelp(io, ENQUEUE_USAGE);
  if (sub !== 'approve')
    throw new UsageError(`unknown enqueue command: ${sub} (only "approve")`, ENQUEUE_USAGE);
  const { values, positionals, help } = parse(
    rest,
    {
      reason: { type: 'string' },
      'requested-by': { type: 'string' },
      'request-id': { type: 'string' },
      'dry-run': { type: 'boolean' },
      print: { type: 'boolean' },
      'queue-url': { type: 'string' },
      local: { type: 'boolean' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      table: { type: 'string' },
    },
    ENQUEUE_USAGE,
    { min: 2, max: 2 },
  );
  if (help) return printHelp(io, ENQUEUE_USAGE);

  const timeoutMs = durationMs((values.timeout as string | undefined) ?? '15m');
  if (timeoutMs === undefined)
    throw new UsageError(`--timeout must be like 90s, 15m, 2h or 1d; got "${values.timeout}"`, ENQUEUE_USAGE);
  // --print sends nothing, so there is no outcome: exiting 0 would pass a gate that never asked.
  if (values.print && values.wait)
    throw new UsageError(
      '--print sends nothing, so there is nothing to --wait for: use one or the other',
      ENQUEUE_USAGE,
    );
  // A gate that forgot --wait exited 0 as soon as it was queued: its deploy step ran unapproved.
  const waitOnly = ['timeout', 'table'].find((name) => values[name] !== undefined);
  if (waitOnly && !values.wait)
    throw new UsageError(`--${waitOnly} is for --wait: add --wait to gate on the outcome`, ENQUEUE_USAGE);
  // Fails before anything is sent when --wait has no table to read.
  const table = values.wait ? stateTableFor(io, values, ENQUEUE_USAGE) : undefined;

  const request = approveRequest(values, positionals, io);
  if (values.print) {
    io.stdout(JSON.stringify(request, null, 2));
    return EXIT.ok;
  }

  const { queueUrl, endpoint } = queueOf(values, io);
  const sqs = createSqsClient({
    ...(endpoint ? { endpoint } : {}),
    ...(io.env.AWS_REGION ? { region: io.env.AWS_REGION } : {}),
  });
  let messageId: string;
  try {
    messageId = await sendActionRequest(sqs, queueUrl, request);
  } catch (error) {
    throw new CommandError(`could not send to ${queueUrl}: ${errorText(error)}`);
  } finally {
    sqs.destroy();
  }
  // The id every log line, metric and audit record of this request carries (the saved query
  // "one request by id" and `audit --request` take it): without --request-id, the worker's own.
  const requestId = request.requestId ?? `sqs:${messageId}`;
  io.stderr(
    `queued approve_phase ${request.triggerId} ${request.phaseId} as ci:${request.requestedBy.id}, request id ${requestId}`,
  );
  io.stdout(messageId);
  if (!table) return EXIT.ok;
  const mine = { messageId, owner: requestOwner(request) };
  return waitAndTell(io, table, requestId, timeoutMs, mine);
}

/** Waits for the request's outcome and says it; the exit code is the gate (see wait.ts). */
async function waitAndTell(
  io: CliIo,
  table: StateTable,
  requestId: string,
  timeoutMs: number,
  mine: SentRequest,
): Promise<number> {
  io.stderr(`waiting up to ${Math.round(timeoutMs / 1000)} s for the outcome of ${requestId}…`);
  try {
    const outcome = await waitForOutcome(table, requestId, {
      mine,
      timeoutMs,
      now: () => io.now().getTime(),
      sleep: io.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    });
    const rule = outcome.rule ? ` (rule: ${outcome.rule})` : '';
    // Not yet recorded by the worker is not "held": wait.ts says why, and where to look.
    // An end that may be a change made (5) is never told as a bare refusal.
    const result =
      outcome.exitCode === WAIT_EXIT.uncertain
        ? `may have been done (check before deploying or asking again): ${outcome.result}`
        : outcome.exitCode !== WAIT_EXIT.held
          ? outcome.result
          : outcome.result === 'queued'
            ? 'still queued at the timeout'
            : `still held at the timeout: ${outcome.result}`;
    // The reason may name another request's requester (any queue sender's choice): shown printable.
    io.stderr(printable(`${result}${rule}${outcome.reason ? `: ${outcome.reason}` : ''}`));
    return outcome.exitCode;
  } catch (error) {
    throw new CommandError(
      `queued, but its outcome cannot be read from ${table.tableName}: ${(error as Error).message}`,
    );
  } finally {
    (table.client as { destroy?: () => void }).destroy?.();
  }
}

/** The approve_phase request from the command line, validated against the public contract. */
function approveRequest(values: Parsed['values'], positionals: string[], io: CliIo): ApprovePhaseRequest {
  const requestedBy = (values['requested-by'] as string | undefined) ?? `ci:${defaultRequester(io.env)}`;
  if (!requestedBy.startsWith('ci:') || requestedBy.length === 3)
    throw new UsageError(`--requested-by must be ci:<id>, got "${requestedBy}"`, ENQUEUE_USAGE);

  const candidate = {
    version: 1,
    action: 'approve_phase',
    triggerId: positionals[0],
    phaseId: positionals[1],
    requestedBy: { source: 'ci', id: requestedBy.slice(3) },
    requestedAt: io.now().toISOString(),
    ...(values.reason !== undefined ? { reason: values.reason } : {}),
    ...(values['request-id'] !== undefined ? { requestId: values['request-id'] } : {}),
    ...(values['dry-run'] ? { dryRun: true } : {}),
  };
  const checked = actionRequestSchemas().approvePhase.safeParse(candidate);
  if (!checked.success) {
    const lines = checked.error.issues.map((issue) => `  ${formatPath(issue.path)}: ${issue.message}`);
    throw new UsageError(`not a valid action request:\n${lines.join('\n')}`, ENQUEUE_USAGE);
  }
  // The contract reserves our own producers' id forms: the worker refuses a ci: request under one
  // to the DLQ at once, so sending it (exit 0, "queued") would tell a CI job a lie.
  const reserved = reservedIdRefusal(checked.data);
  if (reserved) throw new UsageError(`--request-id: ${reserved.reason}`, ENQUEUE_USAGE);
  return checked.data;
}

/** The actions queue: --local's, --queue-url, or ACTIONS_QUEUE_URL. */
function queueOf(values: Parsed['values'], io: CliIo): { queueUrl: string; endpoint?: string } {
  let queueUrl = (values['queue-url'] as string | undefined) ?? io.env.ACTIONS_QUEUE_URL;
  let endpoint = io.env.AWS_ENDPOINT_URL_SQS;
  // Either queue could be the one meant: the request would be sent to the other one.
  if (values.local && values['queue-url'] !== undefined)
    throw new UsageError('--local and --queue-url exclude each other', ENQUEUE_USAGE);
  if (values.local) {
    const endpoints = localEndpoints(io, ['sqsEndpoint', 'queueUrl']);
    queueUrl = endpoints.queueUrl;
    endpoint = endpoints.sqsEndpoint;
  }
  if (!queueUrl)
    throw new UsageError(
      'no queue: set ACTIONS_QUEUE_URL, or pass --queue-url <url> or --local',
      ENQUEUE_USAGE,
    );

  return { queueUrl, ...(endpoint ? { endpoint } : {}) };
}
