/**
 * A chaos invocation stops acting at its function timeout, as Lambda stops the runtime
 * (src/local/chaos-timeout.ts): every call through its clients fails at once from its deadline on,
 * the ones in flight included; and one whose process died after a put gives nothing back, even
 * when its deadline passes later (src/local/chaos-dying.ts, chaos-invocation.ts).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { dyingGate } from '../../src/local/chaos-dying.js';
import { gatedClients } from '../../src/local/chaos-invocation.js';
import { InvocationTimedOut, timeoutGate } from '../../src/local/chaos-timeout.js';
import type { StateTable } from '../../src/state/table.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function clients(delayMs = 0) {
  const calls: string[] = [];
  const answer = async (what: string) => {
    if (delayMs) await sleep(delayMs);
    calls.push(what);
    return { ok: what };
  };
  return {
    calls,
    base: {
      table: {
        tableName: 't',
        client: { send: (command: { constructor: { name: string } }) => answer(command.constructor.name) },
      } as unknown as StateTable,
      sqs: {
        send: (command: { constructor: { name: string } }) => answer(command.constructor.name),
      } as never,
      slackSend: (() => answer('slack')) as never,
      fetch: (() => answer('console')) as never,
      channelUrl: () => answer('secret').then(() => 'https://hooks.example/x'),
    },
  };
}

const put = () => new PutItemCommand({ TableName: 't', Item: { pk: { S: 'a' }, sk: { S: 'b' } } });

describe('chaos invocation gates', () => {
  it('let every call through before the deadline, and fail every one at once from it on', async () => {
    const { base, calls } = clients();
    const timeout = timeoutGate(Date.now() + 40);
    const own = gatedClients(base, [timeout.gate]);
    await own.table.client.send(put());
    await own.sqs.send(new SendMessageCommand({ QueueUrl: 'q', MessageBody: '{}' }));
    await timeout.timedOut;
    const started = Date.now();
    const after = await Promise.allSettled([
      own.table.client.send(put()),
      own.sqs.send(new SendMessageCommand({ QueueUrl: 'q', MessageBody: '{}' })),
      own.slackSend({ url: 'https://hooks.example/x', method: 'POST' } as never),
      own.fetch('https://console.example/x'),
      own.channelUrl?.(),
    ]);
    expect(Date.now() - started).toBeLessThan(20);
    for (const settled of after) {
      expect(settled.status).toBe('rejected');
      expect((settled as PromiseRejectedResult).reason).toBeInstanceOf(InvocationTimedOut);
    }
    expect(calls).toEqual(['PutItemCommand', 'SendMessageCommand']);
  });

  it('fails a call in flight at the deadline (its request may land; its answer is never read)', async () => {
    const { base } = clients(200);
    const timeout = timeoutGate(Date.now() + 30);
    const own = gatedClients(base, [timeout.gate]);
    const started = Date.now();
    await expect(own.fetch('https://console.example/x')).rejects.toBeInstanceOf(InvocationTimedOut);
    expect(Date.now() - started).toBeLessThan(150);
  });

  it('never times out once the invocation ended before its deadline', async () => {
    const timeout = timeoutGate(Date.now() + 20);
    timeout.end();
    const fired = await Promise.race([timeout.timedOut.then(() => true), sleep(60).then(() => false)]);
    expect(fired).toBe(false);
  });

  it('keeps a process that died after a put silent, even when its deadline passes later', async () => {
    const { base, calls } = clients();
    const timeout = timeoutGate(Date.now() + 40);
    const dying = dyingGate(1);
    const own = gatedClients(base, [timeout.gate, dying.gate]);
    let settled = false;
    void own.table.client.send(put()).finally(() => {
      settled = true;
    });
    await dying.died;
    const later = own.fetch('https://console.example/x').finally(() => {
      settled = true;
    });
    await sleep(80);
    expect(settled).toBe(false);
    expect(calls).toEqual(['PutItemCommand']);
    void later;
  });

  it('notes the messages whose visibility the invocation set itself', async () => {
    const { base } = clients();
    const own = gatedClients(base, []);
    await own.sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: 'q', ReceiptHandle: 'rh-1', VisibilityTimeout: 3 }),
    );
    expect([...own.retimed]).toEqual(['rh-1']);
  });
});
