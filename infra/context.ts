/**
 * The deployment's settings, read from CDK context (`-c key=value` on the command line, or the
 * `context` block of cdk.json). Context given on the command line arrives as strings, so
 * numbers are parsed here and a bad value fails the synth with the key's name.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Node } from 'constructs';
import { NODE_RUNTIMES, type NodeRuntime } from './autopilot-function.js';
import type { AutopilotStackProps } from './autopilot-stack.js';
import { REPO_ROOT } from './bundling.js';

/** Lets `cdk synth` run in CI with no settings; a deployment must pass the real URL. */
export const PLACEHOLDER_CONSOLE_API_BASE_URL = 'https://console-api.invalid';

function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new Error(`context value "${key}" must be a string or number, got ${JSON.stringify(value)}`);
  }
  return String(value).trim();
}

function integer(node: Node, key: string, range?: { min: number; max: number }): number | undefined {
  const raw = text(node, key);
  if (raw === undefined) return undefined;
  // Digits only: Number() would also take "0x1E", "1e1" or "4.0" for a count of minutes.
  const value = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw new Error(`context value "${key}" must be an integer, got "${raw}"`);
  if (range && (value < range.min || value > range.max))
    throw new Error(`context value "${key}" must be from ${range.min} to ${range.max}, got ${value}`);
  return value;
}

/** true or false: a JSON boolean in cdk.json, or the text of `-c key=true`. */
function flag(node: Node, key: string): boolean | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new Error(`context value "${key}" must be true or false, got ${JSON.stringify(value)}`);
}

/** Enough to catch a typo (no full RFC 5322): one @, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function email(node: Node, key: string): string | undefined {
  const value = text(node, key);
  if (value !== undefined && !EMAIL.test(value))
    throw new Error(`context value "${key}" must be an e-mail address, got "${value}"`);
  return value;
}

/** Complete secret ARNs only: a partial ARN would fail at deploy, far from its cause. */
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;

function secretArn(node: Node, key: string): string | undefined {
  const value = text(node, key);
  if (value !== undefined && !SECRET_ARN.test(value))
    throw new Error(
      `context value "${key}" must be a complete Secrets Manager ARN (arn:aws:secretsmanager:<region>:<account>:secret:<name>-AbCdEf), got "${value}"`,
    );
  return value;
}

/**
 * A KMS key by its ARN: IAM matches a key's ARN, never an alias, so an alias (or a bare key id)
 * would grant nothing and the functions would fail at their first read, far from the cause.
 */
const KMS_KEY_ARN =
  /^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/(mrk-[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

function kmsKeyArn(node: Node, key: string): string | undefined {
  const value = text(node, key);
  if (value !== undefined && !KMS_KEY_ARN.test(value))
    throw new Error(
      `context value "${key}" must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key id>), got "${value}"`,
    );
  return value;
}

/** Principals that may send CI requests: IAM role or user ARNs, or 12-digit account ids. */
const CI_PRINCIPAL = /^(\d{12}|arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]+)$/;

/** `ciPrincipals`: a comma-separated string (`-c ciPrincipals=a,b`) or a JSON array (cdk.json). */
function principals(node: Node, key: string): string[] | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!list)
    throw new Error(`context value "${key}" must be a comma-separated list, got ${JSON.stringify(value)}`);
  return list.map((item) => {
    const text = String(item).trim();
    if (!CI_PRINCIPAL.test(text))
      throw new Error(
        `context value "${key}": "${text}" is neither an IAM role or user ARN nor a 12-digit account id`,
      );
    return text;
  });
}

/**
 * The API key must never travel in clear text: https only, except to a loopback address (a
 * local tunnel or the sandbox). Returns the reason in one line, or undefined when fine.
 */
export function consoleApiBaseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `consoleApiBaseUrl must be an https:// URL, got "${value}"`;
  }
  // Credentials in the URL would sit in the template, the functions' environment and any line
  // that shows the URL: refused, and never echoed.
  if (url.username || url.password)
    return 'consoleApiBaseUrl must not carry a user name or password (the API key comes from the secret)';
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return `consoleApiBaseUrl must be an https:// URL (the API key would travel in clear text; http:// only for localhost), got "${value}"`;
  // The client appends `/console/v1/...` to it: a query or fragment would end up inside every path.
  if (url.search || url.hash || value.includes('?') || value.includes('#'))
    return `consoleApiBaseUrl must have no query or fragment (/console/v1/… is appended to it), got "${value}"`;
  if (/\/console\/v1\/*$/i.test(url.pathname))
    return `consoleApiBaseUrl is the base the API is under, without /console/v1 (the client appends it), got "${value}"`;
  return undefined;
}

/** Every context key the app reads (README "Deploy the stack"); `policyTests` is read by app.ts. */
export const CONTEXT_KEYS = [
  'consoleApiBaseUrl',
  'sweepSchedule',
  'workerMaxConcurrency',
  'alarmEmail',
  'existingSecretArn',
  'existingWebhookSecretArn',
  'existingSweeperSecretArn',
  'secretsKmsKeyArn',
  'alarmThrottledPer5Min',
  'alarmUnreachablePer5Min',
  'alarmServerErrorsPer5Min',
  'alarmQueueAgeMinutes',
  'alarmSweeperLagPeriods',
  'alarmStaleNotJudgedHours',
  'alarmApiThrottledPer5Min',
  'ciPrincipals',
  'policyFile',
  'nodeRuntime',
  'policyTests',
  'reserveSweeperConcurrency',
  'respectReviewSettings',
] as const;

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        previous[j]! + 1,
        row[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * Keys CDK's CLI itself writes into cdk.json / cdk.context.json without a `:` or `/` in them
 * (`cdk acknowledge`, `cdk cli-telemetry`; the legacy synthesizer's repository name).
 */
const CDK_PLAIN_KEYS: readonly string[] = [
  'acknowledged-issue-numbers',
  'cli-telemetry',
  'assets-ecr-repository-name',
];

/** CDK's own: feature flags (`@aws-cdk/...`, `aws-cdk:...`), `aws:cdk:*` settings, lookups (`availability-zones:...`). */
const isCdkKey = (key: string): boolean =>
  /[:/]/.test(key) || key.startsWith('@aws-cdk') || key.startsWith('aws-cdk') || CDK_PLAIN_KEYS.includes(key);

/**
 * Our keys nearest `key`, nearest first, at most three (the line stays one). Near: one it holds
 * (`sweepScheduleMinutes`), one it is most of the start of (`policy` → `policyFile`,
 * `policyTests`), or a few letters off; when none is near, the closest by edit distance, with
 * `near: false`.
 */
export function nearestContextKeys(key: string): { keys: string[]; near: boolean } {
  const lower = key.toLowerCase();
  const ranked = CONTEXT_KEYS.map((k) => {
    const kl = k.toLowerCase();
    const distance = editDistance(lower, kl);
    // A prefix that is most of one of ours (`policy` → `policyFile`) is that key cut short; a short
    // word inside one of ours (`ci`, `test`, `secret`) is someone else's key (a pipeline's `-c ci=true`).
    const cutShort = lower.length >= 5 && kl.startsWith(lower) && lower.length * 2 >= kl.length;
    return { k, distance, near: cutShort || lower.includes(kl) || distance <= 3 };
  }).sort((a, b) => Number(b.near) - Number(a.near) || a.distance - b.distance);
  const near = lower !== '' && ranked[0]?.near === true;
  return {
    keys: ranked
      .filter((r) => r.near || !near)
      .slice(0, 3)
      .map((r) => r.k),
    near,
  };
}

/**
 * A key near one of ours that is not ours nor CDK's is a typo, refused: CDK would ignore it
 * without a word (`-c policy=prod.json` deployed policy.json, `-c alarmEmails=…` paged nobody).
 * One line, naming the key and the nearest ones we read. Other keys are someone else's (a
 * pipeline's `-c ci=true`, a shared cdk.json's): left alone.
 */
function refuseUnknownKeys(node: Node): void {
  const known: readonly string[] = CONTEXT_KEYS;
  for (const key of Object.keys(node.getAllContext() as Record<string, unknown>)) {
    if (known.includes(key) || isCdkKey(key)) continue;
    const { keys, near } = nearestContextKeys(key);
    if (!near) continue; // someone else's key (a pipeline's, a shared cdk.json's): not ours to refuse
    const quoted = keys.map((k) => `"${k}"`);
    throw new Error(
      `context value "${key}" is not one console-autopilot reads, nor one of CDK's: did you mean ${quoted.join(' or ')}? (README "Deploy the stack" lists them all)`,
    );
  }
}

/**
 * `policyTests`: the cases file run before anything is synthesized (read by app.ts), relative to
 * the repository root as `policyFile` is (infra/policy-tests.ts). Anything but a path (`true`, a
 * list) or a file that is not there stops the synth: ignored, it would deploy the policy untested
 * while the operator believes the deploy is gated.
 */
export function policyTestsFile(node: Node, root = REPO_ROOT): string | undefined {
  const value: unknown = node.tryGetContext('policyTests');
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string')
    throw new Error(
      `context value "policyTests" must be the path of a cases file (e.g. policy.cases.json), got ${JSON.stringify(value)}`,
    );
  const path = value.trim();
  if (!existsSync(resolve(root, path)))
    throw new Error(
      `context value "policyTests": cases file ${path} does not exist (relative to ${root}; e.g. policy.cases.json)`,
    );
  return path;
}

/** The stack's settings from context; unset keys keep the stack's defaults. */
export function readSettings(node: Node): AutopilotStackProps {
  refuseUnknownKeys(node);
  const settings: AutopilotStackProps = {
    consoleApiBaseUrl: text(node, 'consoleApiBaseUrl') ?? PLACEHOLDER_CONSOLE_API_BASE_URL,
  };
  const sweepScheduleMinutes = integer(node, 'sweepSchedule', { min: 1, max: 720 });
  const workerMaxConcurrency = integer(node, 'workerMaxConcurrency', { min: 2, max: 1000 });
  const alarmEmail = email(node, 'alarmEmail');
  const existingSecretArn = secretArn(node, 'existingSecretArn');
  const existingWebhookSecretArn = secretArn(node, 'existingWebhookSecretArn');
  const existingSweeperSecretArn = secretArn(node, 'existingSweeperSecretArn');
  const secretsKmsKeyArn = kmsKeyArn(node, 'secretsKmsKeyArn');
  const thresholds = {
    throttledPer5Min: integer(node, 'alarmThrottledPer5Min', { min: 1, max: 10_000 }),
    unreachablePer5Min: integer(node, 'alarmUnreachablePer5Min', { min: 1, max: 10_000 }),
    serverErrorsPer5Min: integer(node, 'alarmServerErrorsPer5Min', { min: 1, max: 10_000 }),
    // Under the actions queue's retention (4 days, 5760 minutes): SQS deletes a message at that
    // age, so ActionsQueueBacklog (age greater than the threshold) set there could never fire.
    queueAgeMinutes: integer(node, 'alarmQueueAgeMinutes', { min: 1, max: 5_759 }),
    sweeperLagPeriods: integer(node, 'alarmSweeperLagPeriods', { min: 1, max: 100 }),
    staleNotJudgedHours: integer(node, 'alarmStaleNotJudgedHours', { min: 1, max: 720 }),
    apiThrottledPer5Min: integer(node, 'alarmApiThrottledPer5Min', { min: 1, max: 100_000 }),
  };
  const alarmThresholds = Object.fromEntries(Object.entries(thresholds).filter(([, v]) => v !== undefined));
  if (Object.keys(alarmThresholds).length > 0) settings.alarmThresholds = alarmThresholds;
  const ciPrincipals = principals(node, 'ciPrincipals');
  const policyFile = text(node, 'policyFile');
  const reserveSweeperConcurrency = flag(node, 'reserveSweeperConcurrency');
  if (reserveSweeperConcurrency !== undefined) settings.reserveSweeperConcurrency = reserveSweeperConcurrency;
  const respectReviewSettings = flag(node, 'respectReviewSettings');
  if (respectReviewSettings !== undefined) settings.respectReviewSettings = respectReviewSettings;
  const nodeRuntime = text(node, 'nodeRuntime');
  if (nodeRuntime !== undefined) {
    if (!(NODE_RUNTIMES as readonly string[]).includes(nodeRuntime))
      throw new Error(
        `context value "nodeRuntime" must be one of ${NODE_RUNTIMES.join(', ')}, got "${nodeRuntime}"`,
      );
    settings.nodeRuntime = nodeRuntime as NodeRuntime;
  }
  if (sweepScheduleMinutes !== undefined) settings.sweepScheduleMinutes = sweepScheduleMinutes;
  if (workerMaxConcurrency !== undefined) settings.workerMaxConcurrency = workerMaxConcurrency;
  if (alarmEmail !== undefined) settings.alarmEmail = alarmEmail;
  if (existingSecretArn !== undefined) settings.existingSecretArn = existingSecretArn;
  if (existingWebhookSecretArn !== undefined) settings.existingWebhookSecretArn = existingWebhookSecretArn;
  if (existingSweeperSecretArn !== undefined) settings.existingSweeperSecretArn = existingSweeperSecretArn;
  if (secretsKmsKeyArn !== undefined) settings.secretsKmsKeyArn = secretsKmsKeyArn;
  if (ciPrincipals !== undefined) settings.ciPrincipals = ciPrincipals;
  if (policyFile !== undefined) settings.policyFile = policyFile;
  return settings;
}
