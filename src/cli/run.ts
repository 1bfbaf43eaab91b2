/**
 * The `autopilot` CLI: dispatch, help and exit codes (0 ok, 1 the command failed, 2 bad
 * command line). Commands write through `CliIo`, so tests run them in-process and spawn the
 * real binary only to check the wiring.
 */

import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, errorText } from './io.js';

export const USAGE = `autopilot — operate console-autopilot

Usage: autopilot <command> [options]     (every command takes --help)

Commands:
  policy check [file]                       validate a policy file and summarise it
  policy explain <request.json> [--at <time>] [--paused]
                                            which rule decides a request, and why
  policy test [policy.json] [cases.json]    run a policy's test cases; exit 1 if one fails
  policy diff <old.json> <new.json>         what changed between two policies, in words
  policy replay --policy <new.json>         what a new policy would have done to past requests
  sweep --dry-run                           run the sweeper once, print its plan as a table
  enqueue approve <triggerId> <phaseId>     queue a phase approval from CI; prints the message id
  dlq list | redrive (--id <id>… | --all)   what is in the DLQ and why; send messages back
  dlq delete <id>… [--yes]                  delete for good DLQ messages that must never run
  stats --local                             the metrics since the local stack started
  audit --request <id> | --target <id> | --since 24h
                                            a request's whole story from the audit trail
  held [--json]                             what is held: id, action, target, requester, why, next look
  cancel <requestId> --reason <text>        end a held request as cancelled (as cli:<user>, via the policy)
  slack manifest --url <url>                the Slack app manifest for a deployed webhook URL
  slack curl <text…>                        a signed curl for /autopilot <text> (local stack)

Exit codes: 0 done, 1 the command failed (invalid policy, unreachable queue...), 2 bad command line.`;

type Command = (args: string[], io: CliIo) => Promise<number>;

// Loaded on use: `policy check` need not load the AWS SDK (the CLI starts noticeably faster).
const COMMANDS: Record<string, () => Promise<Command>> = {
  policy: async () => (await import('./policy.js')).policyCommand,
  enqueue: async () => (await import('./enqueue.js')).enqueueCommand,
  dlq: async () => (await import('./dlq.js')).dlqCommand,
  stats: async () => (await import('./stats.js')).statsCommand,
  audit: async () => (await import('./audit.js')).auditCommand,
  held: async () => (await import('./held.js')).heldCommand,
  cancel: async () => (await import('./held.js')).cancelCommand,
  sweep: async () => (await import('./sweep.js')).sweepCommand,
  slack: async () => (await import('./slack.js')).slackCommand,
};

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.stderr(USAGE);
    return EXIT.usage;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  try {
    if (!load) throw new UsageError(`unknown command: ${command}`, USAGE);
    return await (await load())(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`autopilot: ${error.message}${error.usage ? `\n\n${error.usage}` : ''}`);
      return EXIT.usage;
    }
    if (error instanceof CommandError) {
      io.stderr(`autopilot: ${error.message}`);
      return error.exitCode;
    }
    // Unexpected: its text may be a peer's (an AWS error's message), so scrubbed and printable.
    io.stderr(`autopilot: ${errorText(error)}`);
    return EXIT.failure;
  }
}
