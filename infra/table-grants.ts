/**
 * Which items of the state table each function may touch, and with which actions: one IAM
 * statement per entry, limited to the partition keys it names (`dynamodb:LeadingKeys`; the
 * partitions themselves are listed in src/state/table.ts). Kept free of CDK imports so that the
 * tests that drive each function's table paths (test/security/*-items.test.ts) can check every
 * request against exactly these grants.
 *
 * A batch request is allowed only when one statement covers all of its keys (IAM weighs each
 * statement alone against the whole request), so keys a function reads together share an entry.
 */
import {
  SWEEPER_PARTITION_KEYS,
  WEBHOOK_HELD_PARTITION_KEYS,
  WEBHOOK_PARTITION_KEYS,
  WEBHOOK_READ_PARTITION_KEYS,
  WORKER_PARTITION_KEYS,
} from '../src/state/table.js';

export interface TableGrant {
  actions: readonly string[];
  partitionKeys: readonly string[];
  /**
   * When set, every attribute a request names (its key, update and condition expressions) must
   * be one of these (IAM `dynamodb:Attributes`): a write limited to marks cannot set others.
   */
  attributes?: readonly string[];
}

/**
 * What the webhook may write on a held item: its marks (an Approve click's answer, a cancel, a
 * Deny's look-again and its mark, `deniedBy`/`deniedAt`) and what their conditions read (a cancel is refused while the worker executes
 * the request or records its end: `executingBy`, `reachedAt`, `endingUntil`, src/state/held-gates.ts).
 * Never the held request itself: the worker's release tick re-signs a held item's request for its
 * requester, so a held item the webhook could write whole would let it speak as the sweeper
 * (test/security/held-forgery.test.ts).
 */
export const WEBHOOK_HELD_ATTRIBUTES = [
  'pk',
  'sk',
  'why',
  'nextLook',
  'answeredBy',
  'answeredAt',
  'cancelledBy',
  'cancelledAt',
  'cancelReason',
  'deniedBy',
  'deniedAt',
  'executingBy',
  'reachedAt',
  'endingUntil',
] as const;

export const WEBHOOK_TABLE_GRANTS: readonly TableGrant[] = [
  // Only its own items: the pause switch, its queued marks and vetoes (a Deny's conditional put,
  // and the Deny on record read back when it is refused: the first Deny stands, src/state/veto.ts).
  { actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], partitionKeys: WEBHOOK_PARTITION_KEYS },
  // Read-only, for `/autopilot why`: the audit trail.
  { actions: ['dynamodb:GetItem', 'dynamodb:Query'], partitionKeys: WEBHOOK_READ_PARTITION_KEYS },
  // `/autopilot held`, and a click's or a cancel's marks (the worker ends the request): held requests only.
  { actions: ['dynamodb:GetItem', 'dynamodb:Query'], partitionKeys: WEBHOOK_HELD_PARTITION_KEYS },
  {
    actions: ['dynamodb:UpdateItem'],
    partitionKeys: WEBHOOK_HELD_PARTITION_KEYS,
    attributes: WEBHOOK_HELD_ATTRIBUTES,
  },
];

/**
 * The sweeper: its own bookkeeping, a read of the pause switch and of how its own archives
 * ended (`audit#stale:*`: a denied one is asked again). With more, a compromised or
 * buggy sweeper could lift a pause, delete effect claims or vetoes, forge audit records, or
 * write a held request that the worker's release tick would re-sign for any requester.
 */
export const SWEEPER_TABLE_GRANTS: readonly TableGrant[] = [
  { actions: ['dynamodb:GetItem'], partitionKeys: SWEEPER_PARTITION_KEYS.pause },
  { actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], partitionKeys: SWEEPER_PARTITION_KEYS.cursor },
  { actions: ['dynamodb:PutItem'], partitionKeys: SWEEPER_PARTITION_KEYS.eventsRead },
  { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'], partitionKeys: SWEEPER_PARTITION_KEYS.lease },
  {
    actions: ['dynamodb:BatchGetItem', 'dynamodb:BatchWriteItem'],
    partitionKeys: SWEEPER_PARTITION_KEYS.notified,
  },
  { actions: ['dynamodb:Query', 'dynamodb:BatchWriteItem'], partitionKeys: SWEEPER_PARTITION_KEYS.index },
  { actions: ['dynamodb:BatchGetItem'], partitionKeys: SWEEPER_PARTITION_KEYS.outcomes },
];

/**
 * The worker: what deciding, holding, releasing and executing a request needs. Not the pause
 * switch or vetoes for writing (people set those through the webhook), not the webhook's queued
 * marks, not the sweeper's items.
 */
export const WORKER_TABLE_GRANTS: readonly TableGrant[] = [
  // One BatchGetItem per record reads all five together: one statement must cover them all. It
  // covers the release tick's BatchGetItem of the held requests it acts on too (src/state/held-list.ts).
  { actions: ['dynamodb:BatchGetItem'], partitionKeys: WORKER_PARTITION_KEYS.requestState },
  { actions: ['dynamodb:GetItem'], partitionKeys: WORKER_PARTITION_KEYS.pause },
  {
    actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    partitionKeys: WORKER_PARTITION_KEYS.records,
  },
  // A copy of a given-up request adds its message id to the give-up's record (src/worker/ended-copy.ts).
  { actions: ['dynamodb:Query', 'dynamodb:UpdateItem'], partitionKeys: WORKER_PARTITION_KEYS.auditTrail },
  { actions: ['dynamodb:UpdateItem'], partitionKeys: WORKER_PARTITION_KEYS.counters },
  {
    actions: ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
    partitionKeys: WORKER_PARTITION_KEYS.held,
  },
  {
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    partitionKeys: WORKER_PARTITION_KEYS.budget,
  },
  // A copy put back with a back-off registers itself; its last receive takes itself off (give-up.ts).
  { actions: ['dynamodb:UpdateItem'], partitionKeys: WORKER_PARTITION_KEYS.liveCopies },
  // A copy on its last receive is marked before any work; the release tick queries the marks and
  // deletes each it has looked at (a conditional delete claims the telling: src/worker/dead-attempts.ts).
  {
    actions: ['dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:DeleteItem'],
    partitionKeys: WORKER_PARTITION_KEYS.lastReceives,
  },
];
