/**
 * The chaos run's "process dies after a put" fault (as test/worker/fixture.ts `dyingAfterPut`):
 * an invocation whose process ends right after its n-th DynamoDB put lands (a timeout, an
 * out-of-memory kill). From then on nothing it started answers or goes out: table calls, Console
 * API calls and Slack posts all hang, and no catch block gives anything back. Its batch comes back
 * only once the leases it wrote have run out, as deployed (visibility ≥ 6 × the function timeout).
 */
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import type { HttpSend } from '../http/send.js';
import type { StateTable } from '../state/table.js';

export interface DyingProcess {
  table: StateTable;
  slackSend: HttpSend;
  fetch: typeof fetch;
  /** Settles when the process has died (the put landed). */
  died: Promise<void>;
  /** The item keys of the last put that landed (for the chaos trail). */
  lastPut: () => string;
}

const never = () => new Promise<never>(() => {});

/** Wraps the invocation's clients so that everything stops answering after the `putsBeforeDeath`-th put. */
export function dyingProcess(table: StateTable, slackSend: HttpSend, putsBeforeDeath: number): DyingProcess {
  let dead = false;
  let puts = 0;
  let last = '';
  let markDead: () => void = () => {};
  const died = new Promise<void>((resolve) => {
    markDead = resolve;
  });
  const client = {
    send: async (command: unknown) => {
      if (dead) return never();
      // A PutItem is the one command with an `Item` (DynamoDB requests are built in src/state/ only).
      const isPut = Boolean((command as { input?: { Item?: unknown } }).input?.Item);
      const result = await table.client.send(command as never);
      if (isPut) {
        const item = (command as { input: { Item: Record<string, unknown> } }).input.Item;
        const key = (v: unknown) => (v as { S?: string } | undefined)?.S ?? String(v);
        last = `${key(item.pk)} / ${key(item.sk)}`;
      }
      if (!isPut || dead || ++puts < putsBeforeDeath) return result;
      dead = true;
      markDead();
      return never();
    },
  } as unknown as StateTable['client'];
  return {
    table: { ...table, client },
    slackSend: (request) => (dead ? never() : slackSend(request)),
    fetch: ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      dead ? never() : fetch(input, init)) as typeof fetch,
    died,
    lastPut: () => last,
  };
}

/**
 * Keeps a dead invocation's messages out of sight until its leases have run out (its remaining time
 * plus the lock margin), as the deployed visibility timeout does; a copy coming back sooner finds
 * the dead process's claims still held, which deployed it never does. Best effort.
 */
export async function holdDeadBatch(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  event: SQSEvent,
  leaseMs: number,
): Promise<void> {
  const seconds = Math.ceil(leaseMs / 1000) + 1;
  for (let i = 0; i < event.Records.length; i += 10) {
    const chunk = event.Records.slice(i, i + 10);
    await sqs
      .send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((r, n) => ({
            Id: String(n),
            ReceiptHandle: r.receiptHandle,
            VisibilityTimeout: seconds,
          })),
        }),
      )
      .catch(() => undefined);
  }
}
