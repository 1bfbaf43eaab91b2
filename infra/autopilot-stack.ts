/**
 * The whole of console-autopilot in one stack: the secret, the actions queue and its DLQ, the
 * state table, the three functions (webhook behind an HTTP API, worker on the queue, sweeper
 * on a schedule) with exactly the grants each needs, and the alarms that page a person.
 * Settings come in as typed props; `app.ts` reads them from CDK context.
 */
import {
  Annotations,
  CfnOutput,
  Duration,
  RemovalPolicy,
  Stack,
  type StackProps,
  Token,
  Validations,
} from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import {
  AccountPrincipal,
  AnyPrincipal,
  ArnPrincipal,
  Effect,
  PolicyStatement,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { PLATFORM_MUTATION_LIMITS } from '../src/console/platform-limits.js';
import { MAX_MESSAGE_BYTES } from '../src/queue/message-size.js';
import {
  MAX_RECEIVE_COUNT,
  MAX_RECEIVE_COUNT_VARIABLE,
  QUEUE_VISIBILITY_SECONDS,
} from '../src/queue/redrive.js';
import { GENERATED_FILLER_FIELD } from '../src/secrets/secret-json.js';
import { POLICY_WEBHOOK_URL_DEPRECATED } from '../src/secrets/secrets.js';
import { TABLE_KEYS } from '../src/state/table.js';
import {
  RESPECT_REVIEW_SETTINGS_DEFAULT,
  RESPECT_REVIEW_SETTINGS_VARIABLE,
} from '../src/wiring/review-settings.js';
import { AutopilotFunction, type NodeRuntime } from './autopilot-function.js';
import { bundledPolicy, HANDLER_ENTRIES } from './bundling.js';
import { consoleApiBaseUrlProblem } from './context.js';
import { FUNCTION_MEMORY_MB } from './function-memory.js';
import { type AlarmThresholds, DEFAULT_ALARM_THRESHOLDS, Operations } from './operations.js';
import { SWEEPER_TABLE_GRANTS, WEBHOOK_TABLE_GRANTS, WORKER_TABLE_GRANTS } from './table-grants.js';

export { PLATFORM_MUTATION_LIMITS };

/** The oldest an asynchronous invocation's event may be (Lambda's ceiling, 6 hours). */
const MAX_ASYNC_EVENT_AGE_SECONDS = 21_600;

export interface AutopilotStackProps extends StackProps {
  /** Console API base URL; `/console/v1/...` is appended. */
  consoleApiBaseUrl: string;
  /** Minutes between sweeper runs. @default 15 */
  sweepScheduleMinutes?: number;
  /** An e-mail address subscribed to the alarm topic. */
  alarmEmail?: string;
  /** Complete ARN of an existing secret holding `{consoleApiKey, slackWebhookUrl?}` (worker); else one is created. */
  existingSecretArn?: string;
  /**
   * Complete ARN of an existing secret holding `{consoleReadOnlyApiKey, slackWebhookUrl?}`
   * (sweeper); else one is created. An older deployment's shared secret (`{consoleApiKey}`) also
   * works here, at the cost of the sweeper holding the key that may mutate.
   */
  existingSweeperSecretArn?: string;
  /** Complete ARN of an existing secret holding `{slackSigningSecret, consoleReadOnlyApiKey}` (webhook); else one is created. */
  existingWebhookSecretArn?: string;
  /**
   * ARN of the customer-managed KMS key for the secrets: the ones the stack creates are
   * encrypted with it, and the existing ones named above are expected to be. Each function may
   * decrypt with it, through Secrets Manager only. @default none (the AWS-managed key, which needs no grant)
   */
  secretsKmsKeyArn?: string;
  /**
   * Who besides the functions may send to the actions queue (and so speak as `ci:`): IAM role
   * or user ARNs, or ids of other accounts (the stack's own is refused: it would let everyone in
   * it send). The queue's policy denies SendMessage to every other principal.
   */
  ciPrincipals?: readonly string[];
  /** Most worker invocations at once (SQS event source maxConcurrency, 2–1000). @default 2 */
  workerMaxConcurrency?: number;
  /**
   * Reserve one concurrent execution for the sweeper (context `reserveSweeperConcurrency`). Its
   * DynamoDB lease already keeps runs apart; the reservation also caps it at one, but Lambda
   * refuses any reservation in an account whose concurrency limit is 10 (new accounts). @default true
   */
  reserveSweeperConcurrency?: boolean;
  /**
   * Whether the worker's mutations respect the platform's review settings (context
   * `respectReviewSettings`): it sends `x-respect-review-settings: true` on each, so a phase a team
   * made "Require Review" is not approved by the API key alone. `false` bypasses them, with a synth
   * warning and a warning at each worker start. @default true
   */
  respectReviewSettings?: boolean;
  /** The policy file bundled with every function (relative to the repository root). @default 'policy.json' */
  policyFile?: string;
  /** The Lambda runtime (context `nodeRuntime`). @default the newest aws-cdk-lib offers */
  nodeRuntime?: NodeRuntime;
  /** Alarm thresholds (context `alarmThrottledPer5Min`, `alarmQueueAgeMinutes`, `alarmSweeperLagPeriods`, `alarmStaleNotJudgedHours`...). */
  alarmThresholds?: Partial<AlarmThresholds>;
  /** Handler files (relative to the repository root); tests may point them elsewhere. */
  entries?: Partial<Record<keyof typeof HANDLER_ENTRIES, string>>;
}

export const WORKER_TIMEOUT = Duration.seconds(60);
/** Minutes between release ticks (the ReleaseTick rule); the ReleaseTickNotRunning alarm is built on it. */
export const RELEASE_TICK_MINUTES = 1;

/** The API stage's throttle: Slack sends a handful of requests per person per minute; this caps a flood of unsigned posts. */
const API_THROTTLE = { rateLimit: 20, burstLimit: 40 };
/**
 * Lambda's guidance: visibility at least six times the function timeout, so retries of a batch never
 * overlap. One number with the worker's (src/queue/redrive.ts: how long a failed copy waits).
 */
export const QUEUE_VISIBILITY = Duration.seconds(QUEUE_VISIBILITY_SECONDS);

export class AutopilotStack extends Stack {
  readonly api: HttpApi;

  constructor(scope: Construct, id: string, props: AutopilotStackProps) {
    super(scope, id, props);
    const sweepMinutes = props.sweepScheduleMinutes ?? 15;
    const maxConcurrency = props.workerMaxConcurrency ?? 2;
    if (!Number.isInteger(sweepMinutes) || sweepMinutes < 1 || sweepMinutes > 720) {
      throw new Error(`sweepSchedule must be a whole number of minutes from 1 to 720, got ${sweepMinutes}`);
    }
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 2 || maxConcurrency > 1000) {
      throw new Error(`workerMaxConcurrency must be an integer from 2 to 1000, got ${maxConcurrency}`);
    }
    const urlProblem = consoleApiBaseUrlProblem(props.consoleApiBaseUrl);
    if (urlProblem) throw new Error(urlProblem);
    const entries = { ...HANDLER_ENTRIES, ...props.entries };
    // Each function validates it at synth (with every zod path, so `cdk deploy` refuses a policy
    // the handlers would reject) and bundles its normalized form: see AutopilotFunction.
    const policyFile = props.policyFile ?? 'policy.json';

    // --- Secrets, split by who may read them. The template never holds a value: a created
    // secret starts with empty fields (the handlers refuse to run until an operator sets them);
    // `generateStringKey` is required by CloudFormation and adds an unused random field.
    // With `secretsKmsKeyArn` every secret created here is encrypted with that key, not the
    // AWS-managed one: rules such as "every secret under our own key" (an SCP on CreateSecret,
    // a Config rule) would otherwise refuse or flag the stack. Existing secrets are left as they are.
    const secretsKey = props.secretsKmsKeyArn
      ? Key.fromKeyArn(this, 'SecretsKey', props.secretsKmsKeyArn)
      : undefined;
    const operatorSecret = (
      id: string,
      existingArn: string | undefined,
      fields: string[],
      readers: string,
    ) => {
      if (existingArn) return Secret.fromSecretCompleteArn(this, id, existingArn);
      const created = new Secret(this, id, {
        description: `console-autopilot ${readers}: ${JSON.stringify(fields)} (set after deploy)`,
        ...(secretsKey ? { encryptionKey: secretsKey } : {}),
        generateSecretString: {
          secretStringTemplate: JSON.stringify(Object.fromEntries(fields.map((f) => [f, '']))),
          generateStringKey: GENERATED_FILLER_FIELD,
          excludePunctuation: true,
        },
      });
      Validations.of(created).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The Console API keys, the Slack signing secret and the incoming-webhook URL are issued by those platforms; no rotation Lambda can mint new ones. Operators rotate them by hand and the functions re-read the secret within minutes (at once after a 401 or a failed signature).',
      });
      return created;
    };
    // The worker: the key that may mutate, and the notifications channel's URL.
    const secret = operatorSecret(
      'Secret',
      props.existingSecretArn,
      ['consoleApiKey', 'slackWebhookUrl'],
      'worker',
    );
    // The sweeper reads events that client SDKs wrote (untrusted input): a read-only key, and
    // the channel's URL for its notices. It never holds the key that may mutate.
    const sweeperSecret = operatorSecret(
      'SweeperSecret',
      props.existingSweeperSecretArn,
      ['consoleReadOnlyApiKey', 'slackWebhookUrl'],
      'sweeper',
    );
    // The internet-facing webhook: the Slack signing secret and a read-only Console key.
    const webhookSecret = operatorSecret(
      'WebhookSecret',
      props.existingWebhookSecretArn,
      ['slackSigningSecret', 'consoleReadOnlyApiKey'],
      'webhook',
    );
    // Random keys with which the webhook and the sweeper vouch for requesters (src/actions/proof.ts);
    // each is readable by its signer and the worker only. Nobody ever needs to see them.
    const requesterKey = (id: string, signer: string): Secret => {
      const key = new Secret(this, id, {
        description: `console-autopilot: the ${signer}'s requester key (generated; read by the ${signer} and the worker)`,
        ...(secretsKey ? { encryptionKey: secretsKey } : {}),
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
      });
      Validations.of(key).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'A random key only the functions read. Rotating it (put-secret-value) is picked up within minutes; the worker still accepts the old key for 10 minutes after the rotation (src/secrets/previous-keys.ts), and requests signed with it that reach the worker later end in the DLQ with the reason; there is nothing a person would gain from rotating it on a schedule.',
      });
      return key;
    };
    const webhookRequesterKey = requesterKey('WebhookRequesterKey', 'webhook');
    const sweeperRequesterKey = requesterKey('SweeperRequesterKey', 'sweeper');

    // --- Queues: standard, SSE (SQS-managed keys: no KMS cost or key policy), TLS only.
    const dlq = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // Said, not the default (which differs by SQS's and CDK's version): the worker fits a dead
      // letter's body and error within this number (src/queue/message-size.ts).
      maxMessageSizeBytes: MAX_MESSAGE_BYTES,
      // Its messages are requests nobody has dealt with yet: `cdk destroy` must not drop them.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const actionsQueue = new Queue(this, 'ActionsQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: QUEUE_VISIBILITY,
      retentionPeriod: Duration.days(4),
      maxMessageSizeBytes: MAX_MESSAGE_BYTES,
      // The worker reads the same number (MAX_RECEIVE_COUNT below) to tell a request given up.
      deadLetterQueue: { queue: dlq, maxReceiveCount: MAX_RECEIVE_COUNT },
    });

    // --- State table.
    const table = new Table(this, 'StateTable', {
      partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const common = { CONSOLE_API_BASE_URL: props.consoleApiBaseUrl };

    // --- Webhook: answers Slack within 3 s, enqueues mutations.
    const webhook = new AutopilotFunction(this, 'Webhook', {
      entry: entries.webhook,
      memorySize: FUNCTION_MEMORY_MB.webhook,
      description: 'console-autopilot: Slack slash commands and interactivity',
      policyFile,
      ...(props.nodeRuntime ? { runtime: props.nodeRuntime } : {}),
      timeout: Duration.seconds(10),
      environment: common,
    })
      .bindSecret(webhookSecret)
      .allowSecretsKey(props.secretsKmsKeyArn)
      .bindRequesterKey('webhook', webhookRequesterKey)
      .bindQueueSender(actionsQueue, 'ACTIONS_QUEUE_URL')
      // Only its own items, the audit trail (read) and held requests: infra/table-grants.ts.
      .bindStateTable(table, WEBHOOK_TABLE_GRANTS);

    // The webhook's construct validated the policy file above; a URL in it still works, with a warning.
    if (bundledPolicy(policyFile).policy.notifications.slackWebhookUrl) {
      Annotations.of(this).addWarningV2('autopilot:policy-slack-webhook-url', POLICY_WEBHOOK_URL_DEPRECATED);
    }

    // --- Worker: the only function that mutates the Console API.
    // Its mutations respect the platform's review settings unless the operator turned that off.
    const respectReviewSettings = props.respectReviewSettings ?? RESPECT_REVIEW_SETTINGS_DEFAULT;
    if (!respectReviewSettings) {
      Annotations.of(this).addWarningV2(
        'autopilot:review-settings-bypassed',
        'respectReviewSettings=false: the worker will approve, disable and archive without x-respect-review-settings, bypassing the review settings of the teams whose phases it approves (README "Deploy the stack")',
      );
    }
    // The key's whole budget: the worker's containers share it through the state table.
    const limits = PLATFORM_MUTATION_LIMITS;
    const worker = new AutopilotFunction(this, 'Worker', {
      entry: entries.worker,
      memorySize: FUNCTION_MEMORY_MB.worker,
      description: 'console-autopilot: policy-gated actions from the queue',
      policyFile,
      ...(props.nodeRuntime ? { runtime: props.nodeRuntime } : {}),
      timeout: WORKER_TIMEOUT,
      environment: {
        ...common,
        MUTATION_LIMIT_10S: String(limits.per10s),
        MUTATION_LIMIT_15MIN: String(limits.per15min),
        [MAX_RECEIVE_COUNT_VARIABLE]: String(MAX_RECEIVE_COUNT),
        [RESPECT_REVIEW_SETTINGS_VARIABLE]: String(respectReviewSettings),
      },
    })
      .bindSecret(secret)
      .allowSecretsKey(props.secretsKmsKeyArn)
      .bindRequesterKey('webhook', webhookRequesterKey)
      .bindRequesterKey('sweeper', sweeperRequesterKey)
      .bindQueueSender(actionsQueue, 'ACTIONS_QUEUE_URL')
      .bindQueueSender(dlq, 'DLQ_URL')
      // What deciding, holding and executing requests needs; not the webhook's or the sweeper's
      // own items, and the pause switch and vetoes read only: infra/table-grants.ts.
      .bindStateTable(table, WORKER_TABLE_GRANTS)
      .consumeQueue(actionsQueue, {
        batchSize: 5,
        reportBatchItemFailures: true,
        maxConcurrency,
      });

    // Release tick: held requests (src/state/held.ts) go back to the queue within a minute of
    // their wait ending (resume, a window opening, a counter's new hour or day). At rest it is
    // one short worker invocation and one Query of the held partition per minute.
    const releaseTickRule = new Rule(this, 'ReleaseTick', {
      description: 'console-autopilot: every minute, send held requests whose wait is over back to the queue',
      schedule: Schedule.rate(Duration.minutes(RELEASE_TICK_MINUTES)),
      // A missed tick is made good by the next one a minute later.
      targets: [new LambdaFunction(worker.function, { retryAttempts: 0 })],
    });
    // `retryAttempts: 0` above stops EventBridge's retries only; Lambda's own async queue would run
    // a failed tick twice more (for up to 6 hours, each with its old schedule time as "now").
    // The SQS event source is polled, not invoked asynchronously: this touches ticks alone.
    worker.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.seconds(60) });

    // --- Sweeper: one run at a time, on a schedule.
    const sweeper = new AutopilotFunction(this, 'Sweeper', {
      entry: entries.sweeper,
      memorySize: FUNCTION_MEMORY_MB.sweeper,
      description: 'console-autopilot: scheduled event polling and stale-config sweep',
      policyFile,
      ...(props.nodeRuntime ? { runtime: props.nodeRuntime } : {}),
      // Never longer than the period, so one run ends before the next is due.
      timeout: Duration.seconds(Math.min(300, sweepMinutes * 60)),
      ...(props.reserveSweeperConcurrency === false ? {} : { reservedConcurrentExecutions: 1 }),
      environment: common,
    })
      .bindSecret(sweeperSecret)
      .allowSecretsKey(props.secretsKmsKeyArn)
      .bindRequesterKey('sweeper', sweeperRequesterKey)
      .bindQueueSender(actionsQueue, 'ACTIONS_QUEUE_URL')
      // Its own bookkeeping and a read of the pause switch, nothing else: infra/table-grants.ts.
      .bindStateTable(table, SWEEPER_TABLE_GRANTS);

    // --- Who may send to the actions queue, and so speak as `ci:`: the functions and the CI
    // principals the deployment names; an explicit deny for everyone else beats any grant.
    const ciPrincipals = props.ciPrincipals ?? [];
    const ciArns = ciPrincipals.filter((p) => p.startsWith('arn:'));
    const ciAccounts = ciPrincipals.filter((p) => !p.startsWith('arn:'));
    // An account id is for CI in another account. The stack's own would exempt every role and
    // user in it from the deny below (its conditions are ANDed), i.e. no deny at all: refused
    // when the account is known here; when it is not (an environment-agnostic synth), the
    // second deny keeps this account's unnamed principals out whatever the list says.
    if (!Token.isUnresolved(this.account) && ciAccounts.includes(this.account))
      throw new Error(
        `ciPrincipals names ${this.account}, the stack's own account: every role and user in it could then send to the actions queue as ci:. Name the CI roles by ARN instead (arn:aws:iam::${this.account}:role/<name>)`,
      );
    const namedSenders = [webhook.role.roleArn, worker.role.roleArn, sweeper.role.roleArn, ...ciArns];
    denySendUnless(actionsQueue, 'OnlyNamedSenders', {
      ArnNotEquals: { 'aws:PrincipalArn': namedSenders },
      ...(ciAccounts.length > 0 ? { StringNotEquals: { 'aws:PrincipalAccount': ciAccounts } } : {}),
    });
    if (ciAccounts.length > 0)
      denySendUnless(actionsQueue, 'OnlyNamedSendersInThisAccount', {
        ArnNotEquals: { 'aws:PrincipalArn': namedSenders },
        StringEquals: { 'aws:PrincipalAccount': this.account },
      });
    for (const arn of ciArns) actionsQueue.grantSendMessages(new ArnPrincipal(arn));
    for (const account of ciAccounts) actionsQueue.grantSendMessages(new AccountPrincipal(account));
    // The DLQ is a way into the actions queue too (an operator's `dlq redrive` sends its messages
    // there under the operator's name), so a `ci:` request put in the DLQ would pass as CI. Only
    // the worker sends to it (its poison moves); SQS's own move after the last receive needs no
    // SendMessage permission. Messages another queue's redrive moved here are refused by the
    // redrive itself (src/queue/dead-letters.ts): a redrive-allow policy naming the actions
    // queue would make the two queues refer to each other, which CloudFormation cannot create.
    denySendUnless(dlq, 'OnlyTheWorkerSends', { ArnNotEquals: { 'aws:PrincipalArn': worker.role.roleArn } });
    // A throttled or failed run is not retried from Lambda's async queue either: the next tick
    // does the same work, and stale ticks must not pile up behind reserved concurrency 1.
    sweeper.function.configureAsyncInvoke({
      retryAttempts: 0,
      // Lambda takes 60 s to 6 hours; a schedule of up to 12 hours keeps the 6-hour ceiling.
      maxEventAge: Duration.seconds(Math.min(MAX_ASYNC_EVENT_AGE_SECONDS, Math.max(60, sweepMinutes * 60))),
    });
    new Rule(this, 'SweepSchedule', {
      description: `console-autopilot: run the sweeper every ${sweepMinutes} minutes`,
      schedule: Schedule.rate(Duration.minutes(sweepMinutes)),
      // A missed run is made good by the next one; retries would only pile up behind concurrency 1.
      targets: [new LambdaFunction(sweeper.function, { retryAttempts: 0 })],
    });

    // --- HTTP API in front of the webhook: throttled, access-logged, only the webhook's own routes.
    this.api = new HttpApi(this, 'Api', {
      description: 'console-autopilot Slack webhook',
      createDefaultStage: false,
    });
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    new HttpStage(this, 'ApiStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: API_THROTTLE,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // JSON, and no query string or body: Slack's posts carry user text, not for access logs.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            // Which API, as the dimension of the 429s counted from this log (the WebhookThrottled alarm).
            apiId: '$context.apiId',
            time: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            route: '$context.routeKey',
            status: '$context.status',
            latencyMs: '$context.responseLatency',
            integrationStatus: '$context.integrationStatus',
            integrationError: '$context.integrationErrorMessage',
            length: '$context.responseLength',
          }),
        ),
      },
    });
    const integration = new HttpLambdaIntegration('Webhook', webhook.function);
    for (const path of ['/slack/commands', '/slack/interactions']) {
      this.api.addRoutes({ path, methods: [HttpMethod.POST], integration });
    }
    // A smoke check after deploy (`curl <WebhookUrl>/health`); throttled like the rest.
    this.api.addRoutes({ path: '/health', methods: [HttpMethod.GET], integration });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Slack authenticates each request with an HMAC signature over the raw body, which the webhook verifies before anything else; API Gateway authorizers never see the body, so they cannot check it. GET /health answers a constant and reads nothing.',
    });

    // --- Alarms, to a topic with an optional e-mail subscription.
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'console-autopilot alarms',
      enforceSSL: true,
    });
    Validations.of(topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'Alarm notifications carry only alarm names and states. CloudWatch cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer key would cost more than the rest of the stack at rest.',
    });
    // The topic's own policy (the TLS-only deny above) replaces SNS's default one, whose
    // account-wide allow is what let CloudWatch publish: without this allow every alarm would go
    // to ALARM and page nobody ("not authorized to perform: SNS:Publish" in its history). Only
    // this account's alarms in this region.
    topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'ThisAccountsAlarmsPublish',
        effect: Effect.ALLOW,
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: {
            'aws:SourceArn': `arn:${this.partition}:cloudwatch:${this.region}:${this.account}:alarm:*`,
          },
        },
      }),
    );
    if (props.alarmEmail) topic.addSubscription(new EmailSubscription(props.alarmEmail));
    new Operations(this, 'Operations', {
      functions: { webhook, worker, sweeper },
      api: this.api,
      apiAccessLogs: accessLogs,
      apiThrottle: API_THROTTLE,
      actionsQueue,
      dlq,
      table,
      alarmAction: new SnsAction(topic),
      sweepMinutes,
      releaseTickMinutes: RELEASE_TICK_MINUTES,
      releaseTickRule,
      thresholds: { ...DEFAULT_ALARM_THRESHOLDS, ...props.alarmThresholds },
    });

    new CfnOutput(this, 'WebhookUrl', {
      value: this.api.apiEndpoint,
      description: 'Base URL for the Slack manifest: npm run slack:manifest -- --url <this>',
    });
    new CfnOutput(this, 'SecretArn', {
      value: secret.secretArn,
      description: 'Worker: set {consoleApiKey, slackWebhookUrl} after deploy',
    });
    new CfnOutput(this, 'SweeperSecretArn', {
      value: sweeperSecret.secretArn,
      description: 'Sweeper: set {consoleReadOnlyApiKey, slackWebhookUrl} after deploy',
    });
    new CfnOutput(this, 'WebhookSecretArn', {
      value: webhookSecret.secretArn,
      description: 'Webhook: set {slackSigningSecret, consoleReadOnlyApiKey} after deploy',
    });
    new CfnOutput(this, 'ActionsQueueUrl', {
      value: actionsQueue.queueUrl,
      description: 'CI producers send here',
    });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: dlq.queueUrl });
    new CfnOutput(this, 'StateTableName', {
      value: table.tableName,
      description: 'The state table: `npx autopilot enqueue … --wait`, `policy replay` and the audit read it',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: topic.topicArn });
  }
}

/** A queue-policy statement denying `sqs:SendMessage` to every principal the conditions match. */
function denySendUnless(queue: Queue, sid: string, conditions: Record<string, unknown>): void {
  queue.addToResourcePolicy(
    new PolicyStatement({
      sid,
      effect: Effect.DENY,
      principals: [new AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [queue.queueArn],
      conditions,
    }),
  );
}
