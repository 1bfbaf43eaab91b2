/**
 * In-process AWS emulators that speak the real wire protocols: fauxqs for SQS and dynalite
 * for DynamoDB. The local stack and the tests start them here, then talk to them with the
 * ordinary AWS SDK clients, exactly as the Lambdas talk to AWS. Never bundled into a Lambda.
 */
import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import dynalite from 'dynalite';
import { buildApp as buildFauxqs, interceptLocalhostDns } from 'fauxqs';
import { createSqsClient } from '../queue/actions-queue.js';
import { MAX_MESSAGE_BYTES } from '../queue/message-size.js';
import { MAX_RECEIVE_COUNT } from '../queue/redrive.js';
import { createDynamoClient, createStateTable, type DynamoClient } from '../state/table.js';

export interface Emulators {
  sqsEndpoint: string;
  dynamodbEndpoint: string;
  sqs: SQSClient;
  dynamo: DynamoClient;
  queueUrl: string;
  dlqUrl: string;
  tableName: string;
  stop(): Promise<void>;
}

export interface EmulatorOptions {
  sqsPort?: number;
  dynamodbPort?: number;
  /** Seconds a received message stays invisible (the stack uses 6× the worker timeout). */
  visibilityTimeoutSeconds?: number;
  /** Receives before SQS moves a message to the DLQ. */
  maxReceiveCount?: number;
  queueName?: string;
  tableName?: string;
}

/*
 * fauxqs names its queues `http://sqs.<region>.localhost:<port>/...`, and SDK clients configured
 * by AWS_ENDPOINT_URL_SQS send to the queue URL's host. `*.localhost` is loopback by RFC 6761
 * but glibc does not resolve it, so while emulators run in this process `*.localhost` lookups
 * resolve to 127.0.0.1 (counted, so that nested emulators in one test process are safe).
 * Other processes (the CLI, the demo) pass the endpoint explicitly, which the SDK then uses.
 */
let dnsUsers = 0;
let restoreDns: (() => void) | undefined;
function holdLocalhostDns(): () => void {
  dnsUsers += 1;
  if (dnsUsers === 1) restoreDns = interceptLocalhostDns();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    dnsUsers -= 1;
    if (dnsUsers === 0) {
      restoreDns?.();
      restoreDns = undefined;
    }
  };
}

export async function startEmulators(options: EmulatorOptions = {}): Promise<Emulators> {
  // fauxqs' own startFauxqs() listens on 0.0.0.0; build its app and listen on loopback only.
  const fauxqs = buildFauxqs({ logger: false });
  const sqsAddress = await fauxqs.listen({ port: options.sqsPort ?? 0, host: '127.0.0.1' });
  const releaseDns = holdLocalhostDns();
  const db = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    db.once('error', reject);
    db.listen(options.dynamodbPort ?? 0, '127.0.0.1', () => resolve());
  });
  const sqsEndpoint = `http://127.0.0.1:${new URL(sqsAddress).port}`;
  const dynamodbEndpoint = `http://127.0.0.1:${(db.address() as AddressInfo).port}`;
  const sqs = createSqsClient({ endpoint: sqsEndpoint });
  const dynamo = createDynamoClient({ endpoint: dynamodbEndpoint });

  const queueName = options.queueName ?? 'autopilot-actions';
  const dlq = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${queueName}-dlq`,
      Attributes: { MessageRetentionPeriod: '1209600', MaximumMessageSize: String(MAX_MESSAGE_BYTES) },
    }),
  );
  const dlqUrl = dlq.QueueUrl!;
  const dlqArn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes?.QueueArn;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: queueName,
      Attributes: {
        VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30),
        MaximumMessageSize: String(MAX_MESSAGE_BYTES),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqArn,
          maxReceiveCount: options.maxReceiveCount ?? MAX_RECEIVE_COUNT,
        }),
      },
    }),
  );
  const tableName = options.tableName ?? 'autopilot-state';
  await createStateTable(dynamo, tableName);

  return {
    sqsEndpoint,
    dynamodbEndpoint,
    sqs,
    dynamo,
    queueUrl: queue.QueueUrl!,
    dlqUrl,
    tableName,
    async stop() {
      sqs.destroy();
      dynamo.destroy();
      await fauxqs.close();
      await new Promise<void>((resolve) => db.close(() => resolve()));
      releaseDns();
    },
  };
}
