/**
 * How the chaos run's requests ended (src/local/chaos.ts): each one's last terminal audit record,
 * its final in the state table, or its message in the DLQ; and which of them own which effects.
 */
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { effectKey, parseActionRequest } from '../actions/request.js';
import { type FinalOutcome, readAudit, readFinals } from '../state/audit.js';
import { forEachBounded } from '../util/pool.js';
import { FINAL_RESULTS } from '../worker/replies.js';
import type { ChaosMessage } from './chaos-mix.js';
import type { LocalStack } from './stack.js';

const DONE_RESULTS = new Set(['approved', 'groups-disabled', 'archived', 'replayed']);

/** How a request's audit trail can end: a final result, a copy that replayed one, or the DLQ. */
const TERMINAL_RESULTS: ReadonlySet<string> = new Set([...FINAL_RESULTS, 'replayed', 'dead-lettered']);

async function drainDlq(sqs: SQSClient, dlqUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let i = 0; i < 500; i++) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 600,
      }),
    );
    if (!out.Messages?.length) break;
    for (const m of out.Messages) bodies.push(m.Body ?? '');
  }
  return bodies;
}

/** The request ids among the DLQ's bodies (poison bodies have none). */
function requestIdsOf(bodies: string[]): Set<string> {
  const ids = new Set<string>();
  for (const body of bodies) {
    try {
      const id = (JSON.parse(body) as { requestId?: unknown }).requestId;
      if (typeof id === 'string') ids.add(id);
    } catch {
      // a poison body
    }
  }
  return ids;
}

/**
 * How each request ended: its last terminal audit record (a deferral or a question is not an
 * end; a replay is: the effect's first outcome told again), or the DLQ; the rest are lost.
 */
export async function endings(stack: LocalStack, messages: ChaosMessage[]) {
  const dlqBodies = await drainDlq(stack.emulators.sqs, stack.endpoints.dlqUrl);
  const dlqSet = new Set(dlqBodies);
  const dlqIds = requestIdsOf(dlqBodies);
  const table = { client: stack.emulators.dynamo, tableName: stack.endpoints.tableName };
  const finals = new Map<string, string>();
  // Requests whose own end is in their trail (not a replay): it was owed to the channel.
  const ownEnds = new Set<string>();
  const ids = [...new Set(messages.flatMap((m) => (m.requestId ? [m.requestId] : [])))];
  await forEachBounded(ids, 8, async (id) => {
    const records = await readAudit(table, id);
    const last = records.filter((r) => TERMINAL_RESULTS.has(r.result)).at(-1);
    if (last) finals.set(id, last.result);
    if (records.some((r) => FINAL_RESULTS.has(r.result as never))) ownEnds.add(id);
  });
  // The finals as the state table holds them (the item every copy of a request reads its end from).
  const finalItems = new Map<string, string>();
  const finalOutcomes = new Map<string, FinalOutcome>();
  for (let i = 0; i < ids.length; i += 100)
    for (const [id, final] of await readFinals(table, ids.slice(i, i + 100))) {
      finalItems.set(id, final.result);
      finalOutcomes.set(id, final);
    }
  const terminal: Record<string, number> = {};
  const lost: string[] = [];
  for (const m of messages) {
    let state: string | undefined;
    if (m.kind === 'poison') state = dlqSet.has(m.body) ? 'invalid → DLQ' : undefined;
    else if (m.requestId) {
      state = finals.get(m.requestId) ?? (dlqIds.has(m.requestId) ? 'retries exhausted → DLQ' : undefined);
    }
    if (state === undefined) lost.push(m.requestId ?? m.body);
    else terminal[state] = (terminal[state] ?? 0) + 1;
  }
  return { finals, terminal, lost, finalItems, finalOutcomes, ownEnds, dlqIds };
}

/** Effect keys of the requests whose final outcome says the mutation was done. */
export function doneEffectKeys(messages: ChaosMessage[], finals: Map<string, string>): Set<string> {
  const doneKeys = new Set<string>();
  for (const m of messages) {
    const final = m.requestId ? finals.get(m.requestId) : undefined;
    if (!final || !DONE_RESULTS.has(final)) continue;
    const parsed = parseActionRequest(m.body);
    if (parsed.ok) doneKeys.add(effectKey(parsed.request));
  }
  return doneKeys;
}

/** The request ids of the messages whose effect key is one of `keys`. */
export function requestsOfEffects(messages: ChaosMessage[], keys: Set<string>): string[] {
  if (keys.size === 0) return [];
  return messages.flatMap((m) => {
    const parsed = m.requestId ? parseActionRequest(m.body) : undefined;
    return parsed?.ok && m.requestId && keys.has(effectKey(parsed.request)) ? [m.requestId] : [];
  });
}
