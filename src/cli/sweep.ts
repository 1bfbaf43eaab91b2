/**
 * `autopilot sweep --dry-run`: one sweeper run that changes nothing, printed as a plan.
 * It reads what a real run reads (events, cursor, last-seen, watch set, pause) and
 * captures what it would write: action requests, channel posts and state writes are
 * recorded instead of sent (state writes stay visible to the run itself, see
 * dry-run-table.ts), so the cursor does not move and nothing is queued. The rows
 * are the run's plan — requests it would enqueue, notifications, stale configs it would
 * archive or skip, and why.
 */
import { resolve } from 'node:path';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type ActionRequest, actionTarget, requesterKey } from '../actions/request.js';
import { createLogger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { PolicyError } from '../policy/errors.js';
import { dryRunClient } from '../state/dry-run-table.js';
import { createDynamoClient } from '../state/table.js';
import type { RunSummary } from '../sweeper/summary.js';
import { createSweeper } from '../sweeper/sweeper.js';
import { sweeperDepsFromEnv } from '../wiring/from-env.js';
import { loadPolicyFile } from '../wiring/policy-file.js';
import { parse } from './args.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, printable, printHelp, renderTable } from './io.js';
import { localEndpoints } from './local-endpoints.js';
import { policyFileOf } from './policy-input.js';

export const SWEEP_USAGE = `Usage:
  autopilot sweep --dry-run [--local] [--policy <file>] [--json]
      Run the sweeper once without changing anything: nothing is queued or posted and no
      state is written (the cursor stays). Prints the plan: requests the event rules would
      enqueue, notifications, stale configs it would archive, and what it skips and why.
      --local: against the running local stack (.local/endpoints.json) and its embedded
      sandbox, with the sandbox's key (a stack started with CONSOLE_API_BASE_URL is refused:
      --local never sends a Console API key from the shell); otherwise the
      environment (CONSOLE_API_BASE_URL, CONSOLE_READ_ONLY_API_KEY or CONSOLE_API_KEY or
      AUTOPILOT_SECRET_ID, STATE_TABLE_NAME, ACTIONS_QUEUE_URL, AWS_ENDPOINT_URL_DYNAMODB...).
      Progress goes to stderr on long runs.`;

/** The environment a dry run reads: the process's, or the running local stack's (`--local`). */
function sweepEnvironment(io: CliIo, local: boolean) {
  const env: Record<string, string | undefined> = { ...io.env };
  let dynamoEndpoint = env.AWS_ENDPOINT_URL_DYNAMODB;
  if (local) {
    const endpoints = localEndpoints(io, ['consoleApiBaseUrl', 'dynamodbEndpoint', 'tableName']);
    // The embedded sandbox's own key, never one exported in this shell (a real platform's, say).
    // A stack started with CONSOLE_API_BASE_URL reads an API whose key the file does not carry:
    // refused, rather than sending the shell's key (or a made-up one) to whatever API that is.
    if (!endpoints.sandboxReadOnlyApiKey)
      throw new CommandError(
        printable(
          `the local stack reads the Console API at ${endpoints.consoleApiBaseUrl}, not the embedded sandbox, and --local never sends a key from this shell. ` +
            'Plan against that API without --local, naming it and a key for it on purpose (CONSOLE_API_BASE_URL, CONSOLE_READ_ONLY_API_KEY, STATE_TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB), ' +
            'or restart the stack with the embedded sandbox (`npm start` without CONSOLE_API_BASE_URL).',
        ),
      );
    env.CONSOLE_API_BASE_URL = endpoints.consoleApiBaseUrl;
    env.CONSOLE_READ_ONLY_API_KEY = endpoints.sandboxReadOnlyApiKey;
    delete env.CONSOLE_API_KEY;
    env.STATE_TABLE_NAME = endpoints.tableName;
    env.ACTIONS_QUEUE_URL = endpoints.queueUrl;
    delete env.AUTOPILOT_SECRET_ID;
    // The plan is the running sweeper's: its policy, not the shell's (--policy still names another).
    if (endpoints.policyFile) env.AUTOPILOT_POLICY = endpoints.policyFile;
    dynamoEndpoint = endpoints.dynamodbEndpoint;
  }
  // The dry run never sends, but the dependencies want a queue URL.
  env.ACTIONS_QUEUE_URL ??= 'dry-run://no-queue';
  return { env, dynamoEndpoint };
}

/** The sweeper's dependencies as deployed; a bad policy or a missing variable is the user's to fix (exit 1). */
function sweeperDeps(env: Record<string, string | undefined>, policyFile: string | undefined, io: CliIo) {
  let policy: ReturnType<typeof loadPolicyFile>;
  try {
    // Relative to the command's working directory (io.cwd), as `cancel` and `policy` read theirs.
    policy = loadPolicyFile(resolve(io.cwd, policyFileOf(env, policyFile)));
  } catch (error) {
    if (error instanceof PolicyError) throw new CommandError(error.message);
    throw error;
  }
  try {
    const clock = () => io.now().getTime();
    // stdout is the plan's alone: a dry run's metrics are for nobody, its log lines go to stderr.
    return sweeperDepsFromEnv(env, {
      policy,
      clock,
      // Nothing leaves a dry run (its queue records the requests), so no real proof is made and
      // no requester key is needed or read.
      signer: { proofFor: async () => 'dry-run-unsigned' },
      metrics: createMetrics({ service: 'sweeper', now: clock, sink: () => undefined }),
      logger: createLogger({
        service: 'sweeper',
        level: 'warn',
        now: clock,
        sink: (line) => io.stderr(line),
      }),
    });
  } catch (error) {
    throw new CommandError(`${(error as Error).message} (or use --local with a running \`npm start\`)`);
  }
}

/** The plan as table rows: what would be queued, posted and skipped, and why. */
function planRows(summary: RunSummary, requests: ActionRequest[], posts: string[]): string[][] {
  const rows: string[][] = [];
  for (const request of requests) {
    const kind = request.action === 'archive_config' ? 'archive (stale)' : 'enqueue';
    rows.push([
      kind,
      `${request.action} ${actionTarget(request)}`,
      requesterKey(request.requestedBy),
      request.reason ?? '',
    ]);
  }
  const queuedByRequest = new Set(
    requests
      .filter((r) => r.action === 'archive_config')
      .map((r) => (r.action === 'archive_config' ? r.configId : '')),
  );
  for (const configId of summary.stale.wouldQueue)
    if (!queuedByRequest.has(configId))
      rows.push([
        'archive (policy dry run)',
        `archive_config config ${configId}`,
        'schedule:sweeper',
        'staleConfigs.dryRun is true: reported only',
      ]);
  for (const skip of summary.stale.skipped)
    rows.push([
      'skip',
      `config ${skip.configId}`,
      '',
      `${skip.reason}${skip.detail ? `: ${skip.detail}` : ''}`,
    ]);
  for (const text of posts) rows.push(['notify', 'channel', '', text.split('\n')[0] ?? '']);
  for (const example of summary.rules.skippedExamples)
    rows.push(['skip event', example.event, `rule ${example.rule}`, example.reason]);
  return rows;
}

export async function sweepCommand(args: string[], io: CliIo): Promise<number> {
  const { values, help } = parse(
    args,
    {
      'dry-run': { type: 'boolean' },
      local: { type: 'boolean' },
      policy: { type: 'string' },
      json: { type: 'boolean' },
    },
    SWEEP_USAGE,
    { min: 0, max: 0 },
  );
  if (help) return printHelp(io, SWEEP_USAGE);
  if (!values['dry-run'])
    throw new UsageError('only --dry-run is supported: real runs belong to the schedule', SWEEP_USAGE);

  const { env, dynamoEndpoint } = sweepEnvironment(io, values.local === true);
  const deps = sweeperDeps(env, values.policy as string | undefined, io);

  const dynamo = createDynamoClient(dynamoEndpoint ? { endpoint: dynamoEndpoint } : {});
  const dryTable = dryRunClient(dynamo);
  const requests: ActionRequest[] = [];
  const posts: string[] = [];
  let sent = 0;
  const sqs: Pick<SQSClient, 'send'> = {
    send: (async (command: { input: { MessageBody?: string } }) => {
      requests.push(JSON.parse(command.input.MessageBody ?? '{}') as ActionRequest);
      sent += 1;
      return { MessageId: `dry-run-${sent}` };
    }) as unknown as SQSClient['send'],
  };
  let pages = 0;
  let lastProgress = 0;
  const sweeper = createSweeper({
    ...deps,
    table: { client: dryTable.client, tableName: deps.table.tableName },
    sqs,
    post: async (_url, message) => {
      posts.push(message.text ?? JSON.stringify(message));
      return { ok: true, status: 200 } as never;
    },
    hooks: {
      onStep: (step, detail) => {
        if (step !== 'page') return;
        pages += 1;
        const now = Date.now();
        if (now - lastProgress > 1_000) {
          lastProgress = now;
          io.stderr(`… read ${pages} page(s) of events (${String(detail.newEvents ?? 0)} new on the last)`);
        }
      },
    },
  });

  let summary: RunSummary;
  try {
    summary = await sweeper.run({ remainingMs: 10 * 60_000 });
  } finally {
    dynamo.destroy();
  }

  if (values.json) {
    io.stdout(
      JSON.stringify(
        { summary, requests, notifications: posts, stateWritesSkipped: Object.fromEntries(dryTable.writes) },
        null,
        2,
      ),
    );
    return summary.stop === 'error' ? EXIT.failure : EXIT.ok;
  }

  const rows = planRows(summary, requests, posts);
  io.stdout(
    [
      `Sweep plan (dry run at ${summary.runAt}; nothing was queued, posted or saved)`,
      `events: ${summary.events.newEvents} new of ${summary.events.eventsRead} read in ${summary.events.requests} request(s), order ${summary.events.order}${summary.events.caughtUp ? '' : ', not caught up'}`,
      `stale: ${summary.stale.judged ? `${summary.stale.stale.length} stale` : `not judged (${summary.stale.notJudged ?? 'no staleConfigs'})`}; watch set ${summary.watch.size}${summary.paused ? '; PAUSED: automated actions would wait' : ''}`,
      '',
      rows.length ? renderTable(['plan', 'target', 'by', 'why'], rows) : 'Nothing to do.',
      ...(summary.stop !== 'done'
        ? // The error may carry the platform's own message: shown printable, as the table's cells.
          ['', printable(`stopped early: ${summary.stop}${summary.error ? ` (${summary.error})` : ''}`)]
        : []),
    ].join('\n'),
  );
  return summary.stop === 'error' ? EXIT.failure : EXIT.ok;
}
