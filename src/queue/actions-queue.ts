/**
 * Sending action requests to the actions queue. Every producer (webhook, sweeper, CLI, the
 * worker re-sending a deferred request) goes through here, so each message is validated
 * against the public contract before it leaves and carries the same attributes.
 */
import {
  type MessageAttributeValue,
  SendMessageCommand,
  type SendMessageCommandInput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { PROOF_ATTRIBUTE, type RequesterSigner, RequesterSignerError } from '../actions/proof.js';
import { type ActionRequest, actionRequestSchemas } from '../actions/request.js';
import { localAwsConfig } from '../config/aws.js';
import { formatIssues } from '../util/zod-issues.js';

export class ActionRequestError extends Error {
  override name = 'ActionRequestError';
}

/** An SQS client; `endpoint` points it at an emulator (fauxqs) locally and in tests. */
export function createSqsClient(options: { endpoint?: string; region?: string } = {}): SQSClient {
  return new SQSClient(localAwsConfig(options));
}

export interface SendActionOptions {
  /** Seconds before the message becomes visible (0–900), for deferrals. */
  delaySeconds?: number;
  /**
   * Vouches for the requester (src/actions/proof.ts): the webhook signs `slack`, the sweeper
   * `events` and `schedule`, the worker re-signs the copies it sends. Without one (CLI, CI) the
   * request goes unsigned, which the worker accepts for `ci` only.
   */
  signer?: RequesterSigner;
  /**
   * Called once the request is signed, just before it is sent; a throw stops it unsent. The
   * webhook gives up this way on a signer still running at its deadline (webhook/mutations.ts).
   */
  beforeSend?: () => void;
}

/**
 * JSON with every non-ASCII character written as a `\uXXXX` escape. The parsed value is the
 * same, but the body is then always inside SQS's allowed character set: SQS rejects lone
 * surrogates and U+FFFE/U+FFFF that a pasted Slack reason can carry (and the local emulator
 * also rejects astral characters such as emoji).
 */
export function sqsSafeJson(value: unknown): string {
  const json = JSON.stringify(value);
  // Tested first: most bodies are plain ASCII, and a test costs about half a replace with a
  // callback that matches nothing (this is on every send).
  if (!NOT_PRINTABLE_ASCII.test(json)) return json;
  return json.replace(
    NOT_PRINTABLE_ASCII_ALL,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;
const NOT_PRINTABLE_ASCII_ALL = /[^\x20-\x7e]/g;

/**
 * The requester proof, or a `RequesterSignerError` when it cannot be made (the key's secret
 * unreadable, no key held): nothing was sent then, and the fix is in the sender's secrets, not
 * in SQS, so callers must be able to tell it from a failed send. The cause keeps what failed
 * (a secret's id, never its value).
 */
async function proofOf(
  signer: RequesterSigner | undefined,
  source: ActionRequest['requestedBy']['source'],
  body: string,
): Promise<string | undefined> {
  try {
    return await signer?.proofFor(source, body);
  } catch (error) {
    if (error instanceof RequesterSignerError) throw error;
    throw new RequesterSignerError(
      `cannot vouch for ${source} requests: the requester key could not be read`,
      {
        cause: error,
      },
    );
  }
}

/** Validates and sends one action request; resolves to the SQS message id. */
export async function sendActionRequest(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  request: ActionRequest,
  options: SendActionOptions = {},
): Promise<string> {
  const checked = actionRequestSchemas().actionRequest.safeParse(request);
  if (!checked.success)
    throw new ActionRequestError(`invalid action request: ${formatIssues(checked.error.issues)}`);
  const delay =
    options.delaySeconds === undefined
      ? undefined
      : Math.max(0, Math.min(900, Math.round(options.delaySeconds)));
  const body = sqsSafeJson(checked.data);
  const proof = await proofOf(options.signer, checked.data.requestedBy.source, body);
  options.beforeSend?.();
  // Assembled by assignment, not with conditional spreads: on Node 20 each spread in an object
  // literal goes through the runtime (microseconds apiece), and the webhook sends on every
  // queued mutation. Same fields, same order.
  const attributes: Record<string, MessageAttributeValue> = {
    action: { DataType: 'String', StringValue: checked.data.action },
    requester: {
      DataType: 'String',
      StringValue: `${checked.data.requestedBy.source}:${checked.data.requestedBy.id}`,
    },
  };
  if (checked.data.requestId)
    attributes.requestId = { DataType: 'String', StringValue: checked.data.requestId };
  if (proof) attributes[PROOF_ATTRIBUTE] = { DataType: 'String', StringValue: proof };
  const input: SendMessageCommandInput = { QueueUrl: queueUrl, MessageBody: body };
  if (delay !== undefined) input.DelaySeconds = delay;
  input.MessageAttributes = attributes;
  const out = await sqs.send(new SendMessageCommand(input));
  if (!out.MessageId)
    throw new ActionRequestError('the queue accepted the message but returned no message id');
  return out.MessageId;
}
