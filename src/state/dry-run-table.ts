/**
 * A state table for dry runs: reads go to the real table, writes are kept in memory and
 * never sent. Later reads in the same run see those writes (items put by key, through
 * GetItem, BatchGetItem and `pk = :pk` queries), so a dry run plans what a real run would —
 * a first sweep that saves its observation window and then judges staleness included —
 * while the real table stays untouched. Conditions and updates are not evaluated: counted only.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { keyId } from './dynamo.js';

type Item = Record<string, AttributeValue>;
type Input = Record<string, unknown>;

const keyOf = keyId;

type Output = Record<string, unknown>;
type SendReal = (command: unknown) => Promise<Output>;

/** What the dry run remembers: the items written in this run (null: deleted) and the writes kept back. */
interface Overlay {
  items: Map<string, Item | null>;
  count(name: string): void;
}

/** One command kind: how the dry run answers it (writes are kept, reads see them). */
type Handler = (input: Input, overlay: Overlay, sendReal: () => Promise<Output>) => Promise<Output> | Output;

const putItem: Handler = (input, overlay) => {
  overlay.count('PutItem');
  overlay.items.set(keyOf(input.Item as Item), input.Item as Item);
  return {};
};

const deleteItem: Handler = (input, overlay) => {
  overlay.count('DeleteItem');
  overlay.items.set(keyOf(input.Key as Item), null);
  return {};
};

/** Conditions and updates are not evaluated: counted only. */
const countOnly =
  (name: string): Handler =>
  (_input, overlay) => {
    overlay.count(name);
    return {};
  };

const batchWrite: Handler = (input, overlay) => {
  overlay.count('BatchWriteItem');
  const tables = input.RequestItems as Record<string, Array<Record<string, { Item?: Item; Key?: Item }>>>;
  for (const request of Object.values(tables).flat()) {
    if (request.PutRequest?.Item) overlay.items.set(keyOf(request.PutRequest.Item), request.PutRequest.Item);
    if (request.DeleteRequest?.Key) overlay.items.set(keyOf(request.DeleteRequest.Key), null);
  }
  return { UnprocessedItems: {} };
};

const getItem: Handler = (input, overlay, sendReal) => {
  const key = keyOf(input.Key as Item);
  if (!overlay.items.has(key)) return sendReal();
  const item = overlay.items.get(key);
  return item ? { Item: item } : {};
};

/** `found` by key, with this run's writes to `keys` laid over it. */
function overlaid(found: Item[], keys: Iterable<string>, overlay: Overlay): Map<string, Item> {
  const byKey = new Map(found.map((item) => [keyOf(item), item]));
  for (const k of keys) {
    if (!overlay.items.has(k)) continue;
    const item = overlay.items.get(k);
    if (item) byKey.set(k, item);
    else byKey.delete(k);
  }
  return byKey;
}

const batchGet: Handler = async (input, overlay, sendReal) => {
  const out = await sendReal();
  const responses = { ...((out.Responses as Record<string, Item[]> | undefined) ?? {}) };
  const request = input.RequestItems as Record<string, { Keys: Item[] }>;
  for (const [table, { Keys }] of Object.entries(request)) {
    responses[table] = [...overlaid(responses[table] ?? [], Keys.map(keyOf), overlay).values()];
  }
  return { ...out, Responses: responses };
};

/** Only `pk = :pk` queries (optionally `begins_with(sk, :x)`) of one page see this run's writes. */
const query: Handler = async (input, overlay, sendReal) => {
  const out = await sendReal();
  const expression = String(input.KeyConditionExpression ?? '');
  const values = input.ExpressionAttributeValues as Item | undefined;
  const pk = values?.[':pk']?.S;
  if (!/^pk = :pk\b/.test(expression) || pk === undefined || out.LastEvaluatedKey) return out;
  const prefix = /begins_with\(sk, (:\w+)\)/.exec(expression)?.[1];
  const skPrefix = prefix ? values?.[prefix]?.S : undefined;
  const inPartition = [...overlay.items.keys()].filter((k) => {
    const [itemPk, itemSk] = k.split('\u0000');
    return itemPk === pk && (skPrefix === undefined || itemSk?.startsWith(skPrefix));
  });
  const merged = [...overlaid((out.Items as Item[] | undefined) ?? [], inPartition, overlay).values()].sort(
    (a, b) => (a.sk?.S ?? '').localeCompare(b.sk?.S ?? ''),
  );
  return { ...out, Items: merged, Count: merged.length };
};

/**
 * Each command kind by class identity: a bundler may rename classes (`constructor.name` is not
 * stable under minification), `instanceof` still holds. Anything else goes to the real table.
 */
const HANDLERS: ReadonlyArray<readonly [new (...args: never[]) => unknown, Handler]> = [
  [PutItemCommand, putItem],
  [DeleteItemCommand, deleteItem],
  [UpdateItemCommand, countOnly('UpdateItem')],
  [TransactWriteItemsCommand, countOnly('TransactWriteItems')],
  [BatchWriteItemCommand, batchWrite],
  [GetItemCommand, getItem],
  [BatchGetItemCommand, batchGet],
  [QueryCommand, query],
];

export interface DryRunTable {
  client: DynamoDBClient;
  /** Writes kept back, by command name. */
  writes: Map<string, number>;
}

export function dryRunClient(real: DynamoDBClient): DryRunTable {
  const writes = new Map<string, number>();
  const overlay: Overlay = {
    items: new Map(),
    count: (name) => writes.set(name, (writes.get(name) ?? 0) + 1),
  };
  const sendReal: SendReal = (command) => (real.send as SendReal)(command);
  const send = async (command: { input: Input }) => {
    const handler = HANDLERS.find(([type]) => command instanceof type)?.[1];
    return handler ? handler(command.input, overlay, () => sendReal(command)) : sendReal(command);
  };
  const client = new Proxy(real, {
    get: (target, key, receiver) => (key === 'send' ? send : Reflect.get(target, key, receiver)),
  });
  return { client, writes };
}
