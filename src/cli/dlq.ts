/**
 * `autopilot dlq list`, `dlq redrive` and `dlq delete`: what is in the dead-letter queue and why,
 * sending chosen messages back to the actions queue (see src/queue/dead-letters.ts for how
 * nothing is lost), and deleting the ones that must never run (src/cli/dlq-delete.ts). Works on the local stack (`--local`) and a deployed one (URLs from the options or the
 * environment: DLQ_URL, ACTIONS_QUEUE_URL, as the functions name them).
 */
import { createSqsClient } from '../queue/actions-queue.js';
import {
  type DeadLetter,
  DLQ_READ_MAX,
  foreignLetters,
  receiveAll,
  redrive,
  release,
} from '../queue/dead-letters.js';
import { parse } from './args.js';
import { deleteFromDlq } from './dlq-delete.js';
import { HEADERS, names, plain, row } from './dlq-rows.js';
import { CommandError, UsageError } from './errors.js';
import { type CliIo, EXIT, errorText, printHelp, renderTable } from './io.js';
import { localEndpoints } from './local-endpoints.js';

export const DLQ_USAGE = `Usage:
  autopilot dlq list [--json] [--local | --dlq-url <url>]
      Every message in the DLQ with its request id, action, target and reason. Read-only.
  autopilot dlq redrive (--id <id>… | --all) [--dry-run] [--json] [--local | --dlq-url <url> --queue-url <url>]
      Send messages back to the actions queue (deleted from the DLQ only after the send
      succeeded). --id takes a DLQ message id, the original message id or a request id, and
      may be repeated. --dry-run prints what would move and moves nothing.
  autopilot dlq delete <id>… [--yes] [--dry-run] [--json] [--local | --dlq-url <url>]
      Delete messages from the DLQ for good (one that must never run: forged, or moved here
      from another queue). Each <id> is a DLQ message id, the original message id or a request
      id, and must name exactly one message. Asks first unless --yes; --dry-run deletes nothing.
Environment: DLQ_URL, ACTIONS_QUEUE_URL, AWS_ENDPOINT_URL_SQS, AWS_REGION and the usual AWS credentials.
Fix the cause first (the reason says it): a redriven invalid or unproven message comes straight back.`;

interface Urls {
  dlqUrl: string;
  queueUrl?: string;
  endpoint?: string;
}

function urls(values: Record<string, unknown>, io: CliIo, needQueue: boolean): Urls {
  // --local with a URL: either queue could be the one the operator meant (a delete is for good).
  const named = ['dlq-url', 'queue-url'].find((name) => values[name] !== undefined);
  if (values.local && named) throw new UsageError(`--local and --${named} exclude each other`, DLQ_USAGE);
  if (values.local) {
    const endpoints = localEndpoints(io, [
      'sqsEndpoint',
      'dlqUrl',
      ...(needQueue ? (['queueUrl'] as const) : []),
    ]);
    return { dlqUrl: endpoints.dlqUrl, queueUrl: endpoints.queueUrl, endpoint: endpoints.sqsEndpoint };
  }
  const dlqUrl = (values['dlq-url'] as string | undefined) ?? io.env.DLQ_URL;
  const queueUrl = (values['queue-url'] as string | undefined) ?? io.env.ACTIONS_QUEUE_URL;
  if (!dlqUrl) throw new UsageError('no DLQ: set DLQ_URL, or pass --dlq-url <url> or --local', DLQ_USAGE);
  if (needQueue && !queueUrl)
    throw new UsageError(
      'no actions queue: set ACTIONS_QUEUE_URL, or pass --queue-url <url> or --local',
      DLQ_USAGE,
    );
  const endpoint = io.env.AWS_ENDPOINT_URL_SQS;
  return { dlqUrl, ...(queueUrl ? { queueUrl } : {}), ...(endpoint ? { endpoint } : {}) };
}

/** The letters `ids` name (by message id, source message id or request id), or all; the ids found nowhere; the rest. */
function choose(letters: DeadLetter[], ids: string[], all: boolean) {
  const wanted = new Set(ids);
  const chosen = all ? letters : letters.filter((l) => [...wanted].some((id) => names(l, id)));
  const unknown = ids.filter((id) => !chosen.some((l) => names(l, id)));
  const others = letters.filter((l) => !chosen.includes(l));
  return { chosen, unknown, others };
}

function redriveReport(result: Awaited<ReturnType<typeof redrive>>, unknown: string[]): string {
  return [
    `Moved ${result.moved.length} message(s) back to the actions queue.`,
    ...result.moved.map(
      (m) =>
        `  ${m.messageId} → ${m.newMessageId}${m.requestId ? ` (request ${m.requestId}${m.wasRequestId ? `, was ${m.wasRequestId}` : ''})` : ''}` +
        (m.notDeleted
          ? ` — but NOT deleted from the DLQ (${m.notDeleted}): it shows there again; do not redrive it twice`
          : ''),
    ),
    ...result.failed.map((f) => `  NOT moved ${f.messageId}: ${f.error} (still in the DLQ)`),
    ...unknown.map((id) => `  not in the DLQ: ${id}`),
  ].join('\n');
}

/** What a command holds while it runs: the letters received (invisible to others until released). */
interface Held {
  sqs: ReturnType<typeof createSqsClient>;
  dlqUrl: string;
  letters: DeadLetter[];
}

async function listLetters({ sqs, dlqUrl, letters }: Held, json: boolean, io: CliIo): Promise<number> {
  await release(sqs, dlqUrl, letters);
  io.stdout(
    json
      ? JSON.stringify(letters.map(plain), null, 2)
      : letters.length === 0
        ? 'The DLQ is empty.'
        : `${renderTable(HEADERS, letters.map(row))}\n${letters.length} message(s).`,
  );
  return EXIT.ok;
}

/** Moves the chosen letters back (deleting each only after its send); releases the others at once. */
async function redriveLetters(
  { sqs, dlqUrl, letters }: Held,
  queueUrl: string,
  options: { ids: string[]; all: boolean; dryRun: boolean; json: boolean },
  io: CliIo,
): Promise<number> {
  const { chosen, unknown, others } = choose(letters, options.ids, options.all);
  if (options.dryRun) {
    // What the redrive itself would refuse (moved here from another queue) is not told as moving.
    const refused = await foreignLetters(sqs, queueUrl, chosen);
    const moving = chosen.filter((l) => !refused.has(l.messageId));
    const wouldRefuse = [...refused].map(([messageId, error]) => ({ messageId, error }));
    await release(sqs, dlqUrl, letters);
    io.stdout(
      options.json
        ? JSON.stringify({ wouldMove: moving.map(plain), wouldRefuse, notFound: unknown }, null, 2)
        : `Would move ${moving.length} message(s) back to the actions queue (dry run: nothing moved).` +
            (moving.length ? `\n${renderTable(HEADERS, moving.map(row))}` : '') +
            wouldRefuse.map((r) => `\n  would NOT move ${r.messageId}: ${r.error}`).join(''),
    );
    return unknown.length > 0 || wouldRefuse.length > 0 ? EXIT.failure : EXIT.ok;
  }
  await release(sqs, dlqUrl, others);
  // Reports every chosen letter, and itself makes visible again the failed ones it still holds.
  const result = await redrive(sqs, { dlqUrl, queueUrl }, chosen);
  io.stdout(
    options.json ? JSON.stringify({ ...result, notFound: unknown }, null, 2) : redriveReport(result, unknown),
  );
  const notDeleted = result.moved.some((m) => m.notDeleted !== undefined);
  return result.failed.length > 0 || unknown.length > 0 || notDeleted ? EXIT.failure : EXIT.ok;
}

/** The command line of one dlq command, checked: bad ones are usage errors (exit 2). */
function commandLine(sub: 'list' | 'redrive' | 'delete', rest: string[], io: CliIo) {
  const parsed = parse(
    rest,
    {
      json: { type: 'boolean' },
      local: { type: 'boolean' },
      'dlq-url': { type: 'string' },
      // Redrive only: list and delete act on the DLQ alone, and an ignored --queue-url would let an
      // operator believe they chose the queue listed or deleted from (DLQ_URL's, for good).
      ...(sub === 'redrive' ? { 'queue-url': { type: 'string' as const } } : {}),
      ...(sub === 'redrive'
        ? { id: { type: 'string', multiple: true }, all: { type: 'boolean' }, 'dry-run': { type: 'boolean' } }
        : {}),
      ...(sub === 'delete' ? { yes: { type: 'boolean' }, 'dry-run': { type: 'boolean' } } : {}),
    },
    DLQ_USAGE,
    sub === 'delete' ? { min: 1, max: DLQ_READ_MAX } : { min: 0, max: 0 },
  );
  const { values, help } = parsed;
  const ids = (values.id as unknown as string[] | undefined) ?? [];
  if (help) return { ...parsed, ids };
  // Checked before the DLQ is read: nothing is held when it cannot go on.
  const confirmed = values.yes === true || values['dry-run'] === true;
  if (sub === 'delete' && !confirmed && !io.confirm)
    throw new UsageError(
      'dlq delete asks before it deletes, and cannot ask here (no terminal): pass --yes to delete without asking',
      DLQ_USAGE,
    );
  if (sub === 'redrive' && ids.length === 0 && !values.all)
    throw new UsageError('say which messages: --id <id> (repeatable) or --all', DLQ_USAGE);
  if (ids.length > 0 && values.all) throw new UsageError('--id and --all exclude each other', DLQ_USAGE);
  return { ...parsed, ids };
}

export async function dlqCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined) throw new UsageError('missing dlq command: list, redrive or delete', DLQ_USAGE);
  if (sub === 'help' || sub === '--help' || sub === '-h') return printHelp(io, DLQ_USAGE);
  if (sub !== 'list' && sub !== 'redrive' && sub !== 'delete')
    throw new UsageError(`unknown dlq command: ${sub}`, DLQ_USAGE);
  const { values, positionals, help, ids } = commandLine(sub, rest, io);
  if (help) return printHelp(io, DLQ_USAGE);

  const where = urls(values, io, sub === 'redrive');
  const sqs = createSqsClient({
    ...(where.endpoint ? { endpoint: where.endpoint } : {}),
    ...(io.env.AWS_REGION ? { region: io.env.AWS_REGION } : {}),
  });
  let letters: DeadLetter[] | undefined;
  try {
    letters = await receiveAll(sqs, where.dlqUrl, { holdSeconds: 120 });
    // A bounded read: say so rather than show or move part of the DLQ as if it were all of it.
    const partial = letters.length >= DLQ_READ_MAX;
    if (partial) io.stderr(`note: only the first ${DLQ_READ_MAX} messages were read; the DLQ holds more`);
    const held = { sqs, dlqUrl: where.dlqUrl, letters };
    if (sub === 'list') return await listLetters(held, values.json === true, io);
    if (sub === 'delete') {
      const options = {
        ids: positionals,
        yes: values.yes === true,
        dryRun: values['dry-run'] === true,
        json: values.json === true,
      };
      return await deleteFromDlq(held, options, io);
    }
    const options = {
      ids,
      all: values.all === true,
      dryRun: values['dry-run'] === true,
      json: values.json === true,
    };
    const code = await redriveLetters(held, where.queueUrl as string, options, io);
    return partial && (options.all || code !== EXIT.ok) ? EXIT.failure : code;
  } catch (error) {
    if (error instanceof UsageError || error instanceof CommandError) throw error;
    const message = errorText(error);
    if (letters === undefined)
      throw new CommandError(`the DLQ at ${where.dlqUrl} could not be read: ${message}`);
    // Read, then failed: whatever we still hold goes back to the queue as it was (never a failed read).
    await release(sqs, where.dlqUrl, letters);
    throw new CommandError(`dlq ${sub} failed after reading the DLQ at ${where.dlqUrl}: ${message}`);
  } finally {
    sqs.destroy();
  }
}
