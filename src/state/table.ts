/**
 * The state table: one DynamoDB table for everything console-autopilot remembers (pause flag,
 * effect claims, counters, audit records, the sweeper's cursor, last-seen index, watch set).
 * Items are addressed by `pk` (an item family and its subject) and `sk`; `expiresAt`
 * (epoch seconds) is the table's TTL attribute. Each concern owns a module in this folder
 * and a `pk` prefix, listed here so that no two of them collide.
 */
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { localAwsConfig } from '../config/aws.js';

export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expiresAt' } as const;

/** `pk` prefixes, one per concern. */
export const ITEM_FAMILIES = {
  control: 'control', // pause flag and other switches
  effect: 'effect', // at-most-once claims, keyed by action + target + phase
  counter: 'counter', // maxPerHour / maxPerDay windows
  audit: 'audit', // decision and outcome records
  veto: 'veto', // a human's "deny" on an effect
  sweeper: 'sweeper', // cursor and run bookkeeping
  lastSeen: 'lastseen', // config id -> last exposure
  eventsRead: 'eventsread', // how far the sweeper has read the event log (the worker reads it)
  watch: 'watch', // watched configs and since when
  queued: 'queued', // a Slack request the webhook queued (its retries are not queued again)
  held: 'held', // requests that wait (paused, window, limit, ask), listed and released by the tick
  budget: 'budget', // the mutation budget the worker's containers share (tickets in order)
  copies: 'copies', // a request's copies waiting in their back-off (src/state/live-copies.ts)
  lastReceive: 'lastreceive', // a copy on its last receive, until it ends (src/state/last-receive.ts)
} as const;

/**
 * The items the internet-facing webhook may touch (IAM `dynamodb:LeadingKeys` on `pk`, set by
 * the stack): the pause switch, vetoes and its own queued marks. Nothing else of the table.
 */
export const WEBHOOK_PARTITION_KEYS = [
  `${ITEM_FAMILIES.control}#pause`,
  `${ITEM_FAMILIES.veto}#*`,
  `${ITEM_FAMILIES.queued}#*`,
] as const;

/**
 * Held requests, for `/autopilot held` (read) and `/autopilot cancel` (an update that marks one
 * cancelled; the worker ends it): get, query and update on this one partition.
 */
export const WEBHOOK_HELD_PARTITION_KEYS = [`${ITEM_FAMILIES.held}#all`] as const;

/** What the webhook may only read (`/autopilot why`): the audit trail, records and endings. */
export const WEBHOOK_READ_PARTITION_KEYS = [`${ITEM_FAMILIES.audit}#*`] as const;

/**
 * The items the sweeper may touch (IAM `dynamodb:LeadingKeys`, set by the stack), grouped by
 * what it does there, so that each group gets only its own actions: it reads the pause switch
 * and keeps its own bookkeeping. Nothing a person or the worker writes: not vetoes, effect
 * claims, held requests (the release tick re-signs those) or the audit trail (it only reads how
 * its own archive requests ended).
 */
export const SWEEPER_PARTITION_KEYS = {
  /** Read only: a paused sweep queues no archiving. */
  pause: [`${ITEM_FAMILIES.control}#pause`],
  /** The event cursor: read at the start, saved after each flush. */
  cursor: [`${ITEM_FAMILIES.sweeper}#cursor`],
  /** How far it has read the event log, put after a run that read up to its time (the worker reads it). */
  eventsRead: [ITEM_FAMILIES.eventsRead],
  /** One run at a time: a conditional put, a conditional delete. */
  lease: [`${ITEM_FAMILIES.sweeper}#lease`],
  /** Notifications already posted: batch read, batch written. */
  notified: [`${ITEM_FAMILIES.sweeper}#notified`],
  /** The last-seen index and the watch set: queried whole, batch written. */
  index: [ITEM_FAMILIES.lastSeen, ITEM_FAMILIES.watch],
  /** How its own archives ended (`stale:…` request ids), batch read only: a denied one is asked again. */
  outcomes: [`${ITEM_FAMILIES.audit}#stale:*`],
} as const;

/**
 * The items the worker may touch (IAM `dynamodb:LeadingKeys`, set by the stack), grouped by
 * what it does there: everything a request's decision and execution need, nothing of the
 * webhook's queued marks or the sweeper's own items (watch set, `sweeper#*`); the last-seen index
 * and how far the sweeper has read only read, with a stale sweep's archive (a config exposed since
 * it was judged is not archived, nor one whose exposures since were not read yet).
 */
export const WORKER_PARTITION_KEYS = {
  /** The request's state, read in one batch: its ending, the effect's claim, the pause, a veto, its hold. */
  requestState: [
    `${ITEM_FAMILIES.audit}#*`,
    `${ITEM_FAMILIES.effect}#*`,
    `${ITEM_FAMILIES.control}#pause`,
    `${ITEM_FAMILIES.veto}#*`,
    `${ITEM_FAMILIES.held}#all`,
    ITEM_FAMILIES.lastSeen,
    ITEM_FAMILIES.eventsRead,
  ],
  /** Read alone by the release tick (a person writes it: the worker never does). */
  pause: [`${ITEM_FAMILIES.control}#pause`],
  /** Audit records, endings and "told" marks; at-most-once claims: read, written, given back. */
  records: [`${ITEM_FAMILIES.audit}#*`, `${ITEM_FAMILIES.effect}#*`],
  /**
   * A request's audit trail, queried when a copy replays its own end: was that end told (finish.ts)?
   * And a give-up's record updated: a late copy of the request is named among the messages it ends
   * (src/state/given-up-end.ts).
   */
  auditTrail: [`${ITEM_FAMILIES.audit}#*`],
  /** maxPerHour / maxPerDay: taken and refunded with conditional updates. */
  counters: [`${ITEM_FAMILIES.counter}#*`],
  /** Held requests: written when one starts to wait, listed and released by the tick, ended. */
  held: [`${ITEM_FAMILIES.held}#all`],
  /** The mutation budget the worker's containers share: a counter and numbered tickets. */
  budget: [`${ITEM_FAMILIES.budget}#mutations`],
  /** A request's copies waiting in their back-off: registered and taken off by one update each. */
  liveCopies: [`${ITEM_FAMILIES.copies}#*`],
  /**
   * Copies on their last receive: marked before any work, cleared by a told give-up or a silent
   * end, and queried by the release tick, which tells a copy that died there given up
   * (src/worker/dead-attempts.ts).
   */
  lastReceives: [`${ITEM_FAMILIES.lastReceive}#all`],
} as const;

/** The DynamoDB client, named here so that modules outside `src/state/` need not import the SDK. */
export type DynamoClient = DynamoDBClient;

export interface StateTable {
  /** Only `send` is used, so handlers can hand in a client built on first use (util/lazy-client). */
  client: Pick<DynamoDBClient, 'send'>;
  tableName: string;
}

/** A DynamoDB client; `endpoint` points it at an emulator (dynalite) locally and in tests. */
export function createDynamoClient(options: { endpoint?: string; region?: string } = {}): DynamoDBClient {
  return new DynamoDBClient(localAwsConfig(options));
}

/**
 * Creates the state table as the stack defines it (for the local stack and tests; the stack owns it
 * on AWS) and returns once it is ACTIVE. CreateTable answers while the table is still CREATING
 * (dynalite too, even with createTableMs 0: it flips the status on a timer), and a read in that
 * gap is refused with ResourceNotFoundException: under load a test's first write landed there.
 */
export async function createStateTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
        { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
      ],
    }),
  );
  // The waiter asks at once and then every 10–100 ms; an emulator is ACTIVE within one timer tick.
  await waitUntilTableExists(
    { client, minDelay: 0.01, maxDelay: 0.1, maxWaitTime: 30 },
    { TableName: tableName },
  );
}

/** Epoch seconds `days` after `now`, for `expiresAt`. */
export function expiresAfterDays(now: Date, days: number): number {
  return Math.floor(now.getTime() / 1000) + Math.round(days * 86_400);
}
