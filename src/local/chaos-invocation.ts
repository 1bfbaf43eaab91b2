/**
 * One chaos invocation's clients: the worker's own (its table, queue, secrets, Console API and
 * Slack), each call passed through the invocation's gates (chaos-dying.ts, chaos-timeout.ts), so
 * that once it died or timed out nothing of it acts on the world any more, as on Lambda.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RequesterSigner } from '../actions/proof.js';
import type { HttpSend } from '../http/send.js';
import type { StateTable } from '../state/table.js';
import type { RequesterKeySource } from '../worker/admit.js';
import type { Gate } from './chaos-dying.js';

export interface InvocationClients {
  table: StateTable;
  sqs: Pick<SQSClient, 'send'>;
  slackSend: HttpSend;
  fetch: typeof fetch;
  /** Secrets Manager reads: the channel's URL, the requester keys, the signer's keys. */
  channelUrl?: (() => Promise<string | undefined>) | undefined;
  requesterKeys?: RequesterKeySource | undefined;
  signer?: RequesterSigner | undefined;
}

export interface GatedClients extends InvocationClients {
  /** Receipt handles whose visibility the invocation set itself (a back-off, a wait for another copy). */
  retimed: Set<string>;
}

/** `clients` with every call passed through `gates`, the first innermost. */
export function gatedClients(clients: InvocationClients, gates: Gate[]): GatedClients {
  const through = <T>(call: () => Promise<T>, command?: unknown): Promise<T> =>
    gates.reduce<() => Promise<T>>((inner, gate) => () => gate(inner, command), call)();
  const retimed = new Set<string>();
  const { table, sqs, slackSend, channelUrl, requesterKeys, signer } = clients;
  return {
    table: {
      ...table,
      client: {
        send: (command: unknown) => through(() => table.client.send(command as never), command),
      } as unknown as StateTable['client'],
    },
    sqs: {
      send: (async (command: unknown, options?: unknown) => {
        const out = await through(() => sqs.send(command as never, options as never), command);
        const handle = (command as { input?: { ReceiptHandle?: string; VisibilityTimeout?: number } }).input;
        if (handle?.ReceiptHandle && handle.VisibilityTimeout !== undefined)
          retimed.add(handle.ReceiptHandle);
        return out;
      }) as Pick<SQSClient, 'send'>['send'],
    },
    slackSend: (request) => through(() => slackSend(request)),
    fetch: ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
      through(() => clients.fetch(input, init))) as typeof fetch,
    ...(channelUrl ? { channelUrl: () => through(channelUrl) } : {}),
    ...(signer
      ? { signer: { proofFor: (source, body) => through(() => signer.proofFor(source, body)) } }
      : {}),
    ...(requesterKeys
      ? {
          requesterKeys: {
            ...requesterKeys,
            get: () => through(() => requesterKeys.get()),
            refresh: () => through(() => requesterKeys.refresh()),
            ...(requesterKeys.previous
              ? {
                  previous: (signer) =>
                    through(() => requesterKeys.previous?.(signer) ?? Promise.resolve(undefined)),
                }
              : {}),
          } satisfies RequesterKeySource,
        }
      : {}),
    retimed,
  };
}
