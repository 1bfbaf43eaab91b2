/**
 * How a chaos invocation stops acting (as test/worker/fixture.ts `dyingAfterPut`): every call it
 * makes goes through gates (chaos-invocation.ts puts them on its clients).
 * - Its process dies right after its n-th DynamoDB put lands (an out-of-memory kill, a crash): from
 *   then on nothing it started answers or goes out: table, SQS, Secrets Manager, Console API and
 *   Slack calls all hang, and no catch block gives anything back.
 * - It reaches the function timeout (chaos-timeout.ts): Lambda stops the runtime.
 * Either way its batch comes back only once the leases it wrote have run out, as deployed (the
 * queue's visibility is 6 × the function timeout, longer than any lease: infra/autopilot-stack.ts).
 */
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';

/** Runs one call of the invocation (`command`: the AWS SDK command, when it is one), or not. */
export type Gate = <T>(call: () => Promise<T>, command?: unknown) => Promise<T>;

export interface DyingGate {
  gate: Gate;
  /** Settles when the process has died (the put landed). */
  died: Promise<void>;
  /** The item keys of the last put that landed (for the chaos trail). */
  lastPut: () => string;
}

const never = () => new Promise<never>(() => {});

/** Everything stops answering after the `putsBeforeDeath`-th DynamoDB put has landed. */
export function dyingGate(putsBeforeDeath: number): DyingGate {
  let dead = false;
  let puts = 0;
  let last = '';
  let markDead: () => void = () => {};
  const died = new Promise<void>((resolve) => {
    markDead = resolve;
  });
  const gate: Gate = async (call, command) => {
    if (dead) return never();
    // A PutItem is the one command with an `Item` (DynamoDB requests are built in src/state/ only).
    const item = (command as { input?: { Item?: Record<string, unknown> } } | undefined)?.input?.Item;
    const result = await call();
    if (item) {
      const key = (v: unknown) => (v as { S?: string } | undefined)?.S ?? String(v);
      last = `${key(item.pk)} / ${key(item.sk)}`;
    }
    if (dead) return never();
    if (!item || ++puts < putsBeforeDeath) return result;
    dead = true;
    markDead();
    return never();
  };
  return { gate, died, lastPut: () => last };
}

/**
 * Keeps a dead invocation's messages out of sight until its leases have run out (its remaining time
 * plus the lock margin), as the deployed visibility timeout does; a copy coming back sooner finds
 * the dead process's claims still held, which deployed it never does. A message whose visibility
 * the invocation set itself (a back-off, a wait for another copy) keeps it, as deployed. Best effort.
 */
export async function holdDeadBatch(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  event: SQSEvent,
  leaseMs: number,
  retimed: ReadonlySet<string> = new Set(),
): Promise<void> {
  const seconds = Math.ceil(leaseMs / 1000) + 1;
  const records = event.Records.filter((r) => !retimed.has(r.receiptHandle));
  for (let i = 0; i < records.length; i += 10) {
    const chunk = records.slice(i, i + 10);
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
