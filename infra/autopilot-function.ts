/**
 * The house Lambda function: every handler of console-autopilot is one of these, so the
 * runtime, architecture, bundling, log group, tracing and the bundled policy file are set in
 * one place. The policy is validated here, at synth, and the bundle ships its normalized form
 * with the digest that lets the handler trust it without validating it again (infra/bundling.ts).
 * Its `bind*` helpers grant a permission and set the environment variable that names the
 * resource together, so a function can never know of a resource it may not use, nor hold a
 * grant it is not told about.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Duration, RemovalPolicy, Stack, Stage, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource, type SqsEventSourceProps } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Signer } from '../src/actions/proof.js';
import { requesterKeyVariable } from '../src/secrets/secrets.js';
import {
  bundledPolicy,
  DEPLOYED_POLICY_PATH,
  ESM_REQUIRE_BANNER,
  MAIN_FIELDS,
  NODE_TARGET,
  OUTPUT,
  POLICY_FILE_NAME,
  policyDefine,
  REPO_ROOT,
} from './bundling.js';
import type { TableGrant } from './table-grants.js';

export interface AutopilotFunctionProps {
  /** The handler file, absolute or relative to the repository root. */
  entry: string;
  description: string;
  /**
   * The policy file (absolute, or relative to the repository root): validated at synth; its
   * normalized form is bundled next to the handler as `policy.json`.
   */
  policyFile: string;
  /** Environment besides what the `bind*` helpers set. */
  environment?: Record<string, string>;
  /** @default 10 seconds */
  timeout?: Duration;
  /** @default 512 MB; the stack gives each function its own size (infra/function-memory.ts). */
  memorySize?: number;
  reservedConcurrentExecutions?: number;
  /** @default one month */
  logRetention?: RetentionDays;
  /** @default the newest Node.js runtime aws-cdk-lib offers (NODE_RUNTIMES[0]) */
  runtime?: NodeRuntime;
}

/**
 * The Node.js runtimes the bundles run on, newest first: they are built for the oldest
 * (NODE_TARGET, node22), so one bundle runs on either; the newest is the default.
 */
export const NODE_RUNTIMES = ['nodejs24.x', 'nodejs22.x'] as const;
export type NodeRuntime = (typeof NODE_RUNTIMES)[number];
const RUNTIMES: Record<NodeRuntime, Runtime> = {
  'nodejs24.x': Runtime.NODEJS_24_X,
  'nodejs22.x': Runtime.NODEJS_22_X,
};

export class AutopilotFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: IRole;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: AutopilotFunctionProps) {
    super(scope, id);
    const policyFile = resolve(REPO_ROOT, props.policyFile);
    if (!existsSync(policyFile)) {
      throw new Error(`policy file ${policyFile} does not exist (context value "policyFile")`);
    }
    // Validated now (an invalid file fails the synth with every zod path), normalized, and staged
    // in the cloud assembly under its digest, for the bundling to copy beside the handler.
    const policy = bundledPolicy(policyFile);
    const stage = Stage.of(this);
    if (!stage) throw new Error(`${this.node.path}: an AutopilotFunction must belong to an App`);
    const stagedPolicy = join(stage.outdir, `autopilot-policy.${policy.sha256}.json`);
    writeFileSync(stagedPolicy, policy.text);

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Our own role without the AWSLambdaBasicExecutionRole managed policy: it may write to its
    // own log group only, not create and write any log group in the account.
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `console-autopilot ${id}`,
    });
    this.role = role;

    this.function = new NodejsFunction(this, 'Function', {
      entry: resolve(REPO_ROOT, props.entry),
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      handler: 'handler',
      description: props.description,
      runtime: RUNTIMES[props.runtime ?? NODE_RUNTIMES[0]],
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role,
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      environment: {
        AUTOPILOT_POLICY: DEPLOYED_POLICY_PATH,
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: NODE_TARGET,
        minify: OUTPUT.minify,
        sourceMap: OUTPUT.sourceMap,
        sourcesContent: OUTPUT.sourcesContent,
        mainFields: MAIN_FIELDS,
        banner: ESM_REQUIRE_BANNER,
        // The handler trusts a policy file with exactly these bytes without validating it again.
        define: policyDefine(policy),
        bundleAwsSDK: true,
        externalModules: [],
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          // Local bundling runs these through a shell; the paths are quoted, copying is done by cp.
          afterBundling: (_inputDir: string, outputDir: string) => [
            `cp ${JSON.stringify(stagedPolicy)} ${JSON.stringify(join(outputDir, POLICY_FILE_NAME))}`,
          ],
        },
      },
    });
    this.logGroup.grantWrite(role);

    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only the X-Ray statement added by active tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) has Resource "*": X-Ray supports no resource-level permissions. The infra tests assert that no other statement uses "*".',
    });
    if ((props.runtime ?? NODE_RUNTIMES[0]) !== NODE_RUNTIMES[0]) {
      Validations.of(this.function).acknowledge({
        id: 'AwsSolutions-L1',
        reason: `${props.runtime} was chosen by the deployment (context nodeRuntime); the bundles are built for node22, so they run on it.`,
      });
    }
  }

  /** Reads the function's own JSON secret (src/secrets/secrets.ts says which fields): `AUTOPILOT_SECRET_ID`. */
  bindSecret(secret: Pick<ISecret, 'grantRead' | 'secretArn'>): this {
    secret.grantRead(this.role);
    this.function.addEnvironment('AUTOPILOT_SECRET_ID', secret.secretArn);
    return this;
  }

  /**
   * Decrypts with the customer-managed key the secrets are encrypted with (context
   * `secretsKmsKeyArn`), and only when Secrets Manager asks on the function's behalf
   * (`kms:ViaService`): the role cannot use the key for anything else. Nothing when no key is named.
   */
  allowSecretsKey(keyArn: string | undefined): this {
    if (keyArn === undefined) return this;
    this.role.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: ['kms:Decrypt'],
        resources: [keyArn],
        conditions: {
          StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(this).region}.amazonaws.com` },
        },
      }),
    );
    return this;
  }

  /** Reads a signer's requester key (src/actions/proof.ts): `<SIGNER>_REQUESTER_KEY_SECRET_ID`. */
  bindRequesterKey(signer: Signer, secret: Pick<ISecret, 'grantRead' | 'secretArn'>): this {
    secret.grantRead(this.role);
    this.function.addEnvironment(requesterKeyVariable(signer, true), secret.secretArn);
    return this;
  }

  /**
   * Reads and writes some items of the state table (no scans, no table changes):
   * `STATE_TABLE_NAME`. One statement per grant: its actions, on the items whose partition key
   * matches one of its patterns (IAM `dynamodb:LeadingKeys`; infra/table-grants.ts). There is no
   * grant on the whole table: each function names the items it uses.
   */
  bindStateTable(table: Pick<ITable, 'tableName' | 'tableArn'>, grants: readonly TableGrant[]): this {
    for (const only of grants) {
      this.role.addToPrincipalPolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: [...only.actions],
          resources: [table.tableArn],
          conditions: {
            'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...only.partitionKeys] },
            ...(only.attributes
              ? { 'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...only.attributes] } }
              : {}),
          },
        }),
      );
    }
    this.function.addEnvironment('STATE_TABLE_NAME', table.tableName);
    return this;
  }

  /** Sends messages to `queue`, whose URL goes into `envName`. */
  bindQueueSender(
    queue: Pick<IQueue, 'grantSendMessages' | 'queueUrl'>,
    envName: 'ACTIONS_QUEUE_URL' | 'DLQ_URL',
  ): this {
    queue.grantSendMessages(this.role);
    this.function.addEnvironment(envName, queue.queueUrl);
    return this;
  }

  /** Consumes `queue` through an event source mapping (receive, delete, change visibility). */
  consumeQueue(queue: IQueue, options: SqsEventSourceProps): this {
    this.function.addEventSource(new SqsEventSource(queue, options));
    return this;
  }
}
