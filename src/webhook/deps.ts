/**
 * What the webhook needs from the world, passed in explicitly (tests and the local stack
 * build it from emulators and the sandbox; `functions/webhook.ts` builds it from the
 * environment once per container).
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RequesterSigner } from '../actions/proof.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Veto } from '../policy/decide.js';
import type { Policy } from '../policy/schema.js';
import type { SecretsProvider } from '../secrets/secrets.js';
import type { PostResult } from '../slack/post.js';
import type { FinalOutcome, StoredAuditRecord } from '../state/audit.js';
import type { HeldRecord } from '../state/held.js';
import type { HeldCount } from '../state/held-count.js';
import type { HeldPage } from '../state/held-list.js';
import type { PauseState } from '../state/pause.js';
import type { VetoWrite } from '../state/veto.js';
import type { CancelOutcome, CancelRequest } from '../worker/cancel.js';
import type { SlackReply } from './blocks.js';
import type { ConsoleReads } from './reads.js';

/** A cancel whose mark took on a request another end was recorded for first (src/webhook/held.ts). */
export interface CancelLost {
  ok: false;
  code: 'ended-otherwise';
  held: HeldRecord;
  final: FinalOutcome;
}

export interface WebhookDeps {
  policy: Policy;
  /** The deployed policy's short digest (src/policy/digest.ts), which `why` tells older decisions from; default: taken of `policy`. */
  policyDigest?: string;
  secrets: SecretsProvider;
  console: ConsoleReads;
  sqs: Pick<SQSClient, 'send'>;
  queueUrl: string;
  /** Vouches for the `slack` requests the webhook queues (src/actions/proof.ts). */
  signer?: RequesterSigner;
  pause: {
    read(): Promise<PauseState>;
    /** Resolves to the state it replaced, when the store tells it (`resume` of a switch that was off says so). */
    write(change: {
      paused: boolean;
      by: string;
      reason?: string | undefined;
      at: Date;
    }): Promise<PauseState | undefined>;
  };
  /**
   * Which Slack requests reached the queue (`src/state/queued.ts`), so a Slack retry queues
   * only what its first delivery did not.
   */
  queued: {
    mark(requestId: string, messageId: string, at: Date): Promise<void>;
    /** The SQS message id it was queued as; undefined when it never was. */
    find(requestId: string): Promise<string | undefined>;
  };
  /**
   * Records a human's "Deny" on an effect key (`src/state/veto.ts`), unless another person's is
   * there already (also under `formerKey`, the key before the digest keys: src/policy/veto-key.ts
   * `formerVetoKeyFor`): the first Deny stands, and the answer says whose the veto on record is.
   */
  writeVeto(effectKey: string, veto: Veto, formerKey?: string): Promise<VetoWrite>;
  /**
   * Posts to a Slack `response_url` (`src/slack/post.ts`, which refuses foreign origins); never
   * throws. A result that is not ok goes on the request's log line (reply.ts).
   */
  postReply(url: string, message: SlackReply): Promise<PostResult>;
  /**
   * Origins besides Slack's that a `response_url` may point at (`SLACK_REPLY_ORIGINS`, local
   * only): the list the worker posts to as well, so a request carries only a reply address the
   * worker will use (`responseUrlOf`). Default: none.
   */
  replyOrigins?: readonly string[];
  /** A request's audit trail and ending, for `why` (`src/state/audit.ts`; read-only). */
  audit?: {
    read(requestId: string): Promise<{ records: StoredAuditRecord[]; final?: FinalOutcome | undefined }>;
  };
  /**
   * Held requests (`src/state/held.ts`), for `held` and `cancel`: the list, and a cancel that
   * marks the held item when `mayCancel` allows it (src/worker/cancel.ts), or finds the request
   * ended otherwise first (`ended-otherwise`: that end, already told, is the request's).
   */
  held?: {
    /** `size` of them from the one after `after`, in request-id order (src/state/held-list.ts `listHeldPage`). */
    page(size: number, after?: string): Promise<HeldPage>;
    /** How many are held and why, up to a cap (`status`: src/state/held-count.ts). */
    count?(): Promise<HeldCount>;
    /** One held request (a click is checked against the question it answers). */
    read(requestId: string): Promise<HeldRecord | undefined>;
    cancel(
      request: CancelRequest,
      mayCancel: (held: HeldRecord) => true | string,
    ): Promise<CancelOutcome | CancelLost>;
    /**
     * A Deny click: the asked request is looked at by the next tick (ended by the veto); false
     * when it is no open question (gone, cancelled, or already approved by a click). With
     * `deniedBy` (once the veto is written) the Deny's mark too, refused while a copy is executing it.
     */
    lookNow?(requestId: string, at: Date, deniedBy?: string): Promise<boolean>;
    /** An Approve click marks the question answered (`src/state/held-answer.ts`); false when it is not open. */
    answer?(requestId: string, userId: string, at: Date): Promise<boolean>;
    /** The approved copy never reached the queue: the question is open again. */
    unanswer?(requestId: string, userId: string): Promise<void>;
  };
  /** Approximate number of queued actions, for `status` (optional). */
  queueDepth?: () => Promise<number | undefined>;
  logger: Logger;
  /** EMF metrics (`ActionsQueueUnreachable`); default none. */
  metrics?: Metrics;
  now?: () => number;
  /** Overall deadline for reads and for enqueueing, counted from the request's arrival. Default 2500 ms. */
  deadlineMs?: number;
}
