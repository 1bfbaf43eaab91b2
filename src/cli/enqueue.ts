/**
 * `autopilot enqueue approve <triggerId> <phaseId>`: how CI asks for a phase approval. The
 * request is validated against the public contract before it is sent (the same
 * `sendActionRequest` every producer uses); the SQS message id goes to stdout, alone, for
 * scripts. The requester is always `ci:<id>`: this command cannot speak for a person.
 */
import { type ApprovePhaseRequest, actionRequestSchemas } from '../actions/request.js';
import { DEFAULT_ENDPOINTS_FILE, readEndpoints } from '../local/endpoints.js';
import { createSqsClient, sendActionRequest } from '../queue/actions-queue.js';
import { formatPath } from '../util/zod-issues.js';
import { parse } from './args.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, printHelp } from './io.js';

export const ENQUEUE_USAGE = `Usage:
  autopilot enqueue approve <triggerId> <phaseId> [options]
      Send an approve_phase request to the actions queue; prints the SQS message id.
      The policy decides (e.g. office hours for ci:*); the outcome is in the worker's audit.
Options:
  --reason <text>           why (shown in the audit and replies)
  --requested-by ci:<id>    the CI identity (default ci:$GITHUB_REPOSITORY/$GITHUB_WORKFLOW, else ci:cli)
  --request-id <id>         a stable id: a retried CI job then never approves twice
  --dry-run                 the worker decides, records and replies, and changes nothing
  --print                   validate and print the request; send nothing
  --queue-url <url>         default: ACTIONS_QUEUE_URL
  --local                   use the running local stack (.local/endpoints.json)
Environment: ACTIONS_QUEUE_URL, AWS_ENDPOINT_URL_SQS (an emulator), AWS_REGION and the usual AWS credentials.`;

function defaultRequester(env: CliIo['env']): string {
  const parts = [env.GITHUB_REPOSITORY, env.GITHUB_WORKFLOW].filter(Boolean);
  return parts.length ? parts.join('/') : 'cli';
}

export async function enqueueCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    io.stdout(ENQUEUE_USAGE);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
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
    },
    ENQUEUE_USAGE,
    { min: 2, max: 2 },
  );
  if (help) return printHelp(io, ENQUEUE_USAGE);

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
  const request: ApprovePhaseRequest = checked.data;
  if (values.print) {
    io.stdout(JSON.stringify(request, null, 2));
    return EXIT.ok;
  }

  let queueUrl = (values['queue-url'] as string | undefined) ?? io.env.ACTIONS_QUEUE_URL;
  let endpoint = io.env.AWS_ENDPOINT_URL_SQS;
  if (values.local) {
    const endpoints = readEndpoints(io.env.AUTOPILOT_ENDPOINTS_FILE ?? DEFAULT_ENDPOINTS_FILE);
    queueUrl = endpoints.queueUrl;
    endpoint = endpoints.sqsEndpoint;
  }
  if (!queueUrl)
    throw new UsageError(
      'no queue: set ACTIONS_QUEUE_URL, or pass --queue-url <url> or --local',
      ENQUEUE_USAGE,
    );

  const sqs = createSqsClient({
    ...(endpoint ? { endpoint } : {}),
    ...(io.env.AWS_REGION ? { region: io.env.AWS_REGION } : {}),
  });
  try {
    const messageId = await sendActionRequest(sqs, queueUrl, request);
    io.stderr(`queued approve_phase ${request.triggerId} ${request.phaseId} as ${requestedBy}`);
    io.stdout(messageId);
    return EXIT.ok;
  } catch (error) {
    throw new CommandError(`could not send to ${queueUrl}: ${(error as Error).message}`);
  } finally {
    sqs.destroy();
  }
}
