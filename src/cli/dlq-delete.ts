/**
 * `autopilot dlq delete <id>…`: removes from the DLQ, for good, the messages that must never
 * run (a forged request, one another queue moved here that the redrive refuses), which would
 * otherwise keep `DeadLetterQueueNotEmpty` firing. Exactly the messages named: an id that names
 * several (a body may claim any request id, another message's id included) chooses none of them.
 * It asks first unless `--yes`, and says what it deleted.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { deleteLetters } from '../queue/dead-letter-delete.js';
import { type DeadLetter, release } from '../queue/dead-letters.js';
import { HEADERS, names, plain, row } from './dlq-rows.js';
import { type CliIo, EXIT, printable, renderTable } from './io.js';

interface Held {
  sqs: Pick<SQSClient, 'send'>;
  dlqUrl: string;
  letters: DeadLetter[];
}

interface Picked {
  chosen: DeadLetter[];
  notFound: string[];
  ambiguous: Array<{ id: string; messageIds: string[] }>;
}

/** Each id to the one letter it names; an id naming none or several chooses nothing. */
function pick(letters: DeadLetter[], ids: string[]): Picked {
  const picked: Picked = { chosen: [], notFound: [], ambiguous: [] };
  for (const id of new Set(ids)) {
    const named = letters.filter((l) => names(l, id));
    const [only] = named;
    if (!only) picked.notFound.push(id);
    else if (named.length > 1) picked.ambiguous.push({ id, messageIds: named.map((l) => l.messageId) });
    else if (!picked.chosen.includes(only)) picked.chosen.push(only);
  }
  return picked;
}

/** The ids that chose nothing, one line each (they came from the command line, or a body: escaped). */
function problemLines({ notFound, ambiguous }: Picked): string[] {
  return [
    ...notFound.map((id) => `  not found in the DLQ (or another reader holds it now): ${printable(id)}`),
    ...ambiguous.map(
      (a) =>
        `  ${printable(a.id)} names ${a.messageIds.length} messages (${a.messageIds.map(printable).join(', ')}): none deleted for it; name the one you mean by its message id`,
    ),
  ];
}

export async function deleteFromDlq(
  { sqs, dlqUrl, letters }: Held,
  options: { ids: string[]; yes: boolean; dryRun: boolean; json: boolean },
  io: CliIo,
): Promise<number> {
  const picked = pick(letters, options.ids);
  const { chosen, notFound, ambiguous } = picked;
  const unresolved = notFound.length > 0 || ambiguous.length > 0;
  await release(
    sqs,
    dlqUrl,
    letters.filter((l) => !chosen.includes(l)),
  );
  if (options.dryRun) {
    await release(sqs, dlqUrl, chosen);
    io.stdout(
      options.json
        ? JSON.stringify({ wouldDelete: chosen.map(plain), notFound, ambiguous }, null, 2)
        : [
            `Would delete ${chosen.length} message(s) from the DLQ (dry run: nothing deleted).`,
            ...(chosen.length ? [renderTable(HEADERS, chosen.map(row))] : []),
            ...problemLines(picked),
          ].join('\n'),
    );
    return unresolved ? EXIT.failure : EXIT.ok;
  }
  if (chosen.length > 0 && !options.yes && io.confirm) {
    // On stderr: stdout stays the command's result (JSON with --json).
    io.stderr(`About to delete from the DLQ:\n${renderTable(HEADERS, chosen.map(row))}`);
    const yes = await io.confirm(`Delete these ${chosen.length} message(s) from the DLQ for good? [y/N] `);
    if (!yes) {
      await release(sqs, dlqUrl, chosen);
      // The ids that chose nothing are said here too, as after a dry run or a delete.
      io.stdout(
        options.json
          ? JSON.stringify({ deleted: [], declined: true, notFound, ambiguous }, null, 2)
          : ['Nothing deleted.', ...problemLines(picked)].join('\n'),
      );
      return EXIT.failure;
    }
  }
  const result = await deleteLetters(sqs, dlqUrl, chosen);
  const deleted = chosen.filter((l) => result.deleted.includes(l.messageId));
  io.stdout(
    options.json
      ? JSON.stringify(
          { deleted: deleted.map(plain), notDeleted: result.failed, notFound, ambiguous },
          null,
          2,
        )
      : [
          `Deleted ${deleted.length} message(s) from the DLQ.`,
          ...(deleted.length ? [renderTable(HEADERS, deleted.map(row))] : []),
          ...result.failed.map(
            (f) => `  NOT deleted ${printable(f.messageId)}: ${printable(f.error)} (still in the DLQ)`,
          ),
          ...problemLines(picked),
        ].join('\n'),
  );
  return result.failed.length > 0 || unresolved ? EXIT.failure : EXIT.ok;
}
