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

/**
 * The name a command is counted and dispatched under, by class identity: a bundler may rename
 * classes (`constructor.name` is not stable under minification), `instanceof` still holds.
 */
const COMMANDS = [
  ['PutItem', PutItemCommand],
  ['DeleteItem', DeleteItemCommand],
  ['UpdateItem', UpdateItemCommand],
  ['TransactWriteItems', TransactWriteItemsCommand],
  ['BatchWriteItem', BatchWriteItemCommand],
  ['GetItem', GetItemCommand],
  ['BatchGetItem', BatchGetItemCommand],
  ['Query', QueryCommand],
] as const;

function commandName(command: unknown): string | undefined {
  return COMMANDS.find(([, type]) => command instanceof type)?.[0];
}

export interface DryRunTable {
  client: DynamoDBClient;
  /** Writes kept back, by command name. */
  writes: Map<string, number>;
}

export function dryRunClient(real: DynamoDBClient): DryRunTable {
  const writes = new Map<string, number>();
  const items = new Map<string, Item | null>(); // null: deleted in this run
  const count = (name: string) => writes.set(name, (writes.get(name) ?? 0) + 1);
  const sendReal = (command: unknown) =>
    (real.send as (c: unknown) => Promise<Record<string, unknown>>)(command);

  const send = async (command: { input: Input }) => {
    const input = command.input;
    const name = commandName(command);
    switch (name) {
      case 'PutItem':
        count('PutItem');
        items.set(keyOf(input.Item as Item), input.Item as Item);
        return {};
      case 'DeleteItem':
        count('DeleteItem');
        items.set(keyOf(input.Key as Item), null);
        return {};
      case 'UpdateItem':
      case 'TransactWriteItems':
        count(name);
        return {};
      case 'BatchWriteItem': {
        count('BatchWriteItem');
        for (const requests of Object.values(
          input.RequestItems as Record<string, Array<Record<string, { Item?: Item; Key?: Item }>>>,
        )) {
          for (const request of requests) {
            if (request.PutRequest?.Item) items.set(keyOf(request.PutRequest.Item), request.PutRequest.Item);
            if (request.DeleteRequest?.Key) items.set(keyOf(request.DeleteRequest.Key), null);
          }
        }
        return { UnprocessedItems: {} };
      }
      case 'GetItem': {
        const key = keyOf(input.Key as Item);
        if (items.has(key)) {
          const item = items.get(key);
          return item ? { Item: item } : {};
        }
        return sendReal(command);
      }
      case 'BatchGetItem': {
        const out = await sendReal(command);
        const responses = { ...((out.Responses as Record<string, Item[]> | undefined) ?? {}) };
        const request = input.RequestItems as Record<string, { Keys: Item[] }>;
        for (const [table, { Keys }] of Object.entries(request)) {
          const byKey = new Map((responses[table] ?? []).map((item) => [keyOf(item), item]));
          for (const key of Keys) {
            const k = keyOf(key);
            if (!items.has(k)) continue;
            const item = items.get(k);
            if (item) byKey.set(k, item);
            else byKey.delete(k);
          }
          responses[table] = [...byKey.values()];
        }
        return { ...out, Responses: responses };
      }
      case 'Query': {
        const out = await sendReal(command);
        const expression = String(input.KeyConditionExpression ?? '');
        const pk = (input.ExpressionAttributeValues as Item | undefined)?.[':pk']?.S;
        if (!/^pk = :pk\b/.test(expression) || pk === undefined || out.LastEvaluatedKey) return out;
        const prefix = /begins_with\(sk, (:\w+)\)/.exec(expression)?.[1];
        const skPrefix = prefix ? (input.ExpressionAttributeValues as Item)[prefix]?.S : undefined;
        const byKey = new Map(((out.Items as Item[] | undefined) ?? []).map((item) => [keyOf(item), item]));
        for (const [k, item] of items) {
          const [itemPk, itemSk] = k.split('\u0000');
          if (itemPk !== pk || (skPrefix !== undefined && !itemSk?.startsWith(skPrefix))) continue;
          if (item) byKey.set(k, item);
          else byKey.delete(k);
        }
        const merged = [...byKey.values()].sort((a, b) => (a.sk?.S ?? '').localeCompare(b.sk?.S ?? ''));
        return { ...out, Items: merged, Count: merged.length };
      }
      default:
        return sendReal(command);
    }
  };
  const client = new Proxy(real, {
    get: (target, key, receiver) => (key === 'send' ? send : Reflect.get(target, key, receiver)),
  });
  return { client, writes };
}
