/**
 * Where each function's credentials come from. Each function reads only what it needs, so a
 * secret it may not hold is never even named to it (least privilege):
 *
 * | function | `AUTOPILOT_SECRET_ID` (JSON)                      | requester keys (plain strings) |
 * |----------|---------------------------------------------------|--------------------------------|
 * | webhook  | `slackSigningSecret`, `consoleReadOnlyApiKey`     | webhook                        |
 * | worker   | `consoleApiKey`, `slackWebhookUrl` (optional)     | webhook, sweeper (to check)    |
 * | sweeper  | `consoleReadOnlyApiKey`, `slackWebhookUrl` (opt.) | sweeper                        |
 *
 * Only the worker holds the key that may mutate; the sweeper reads events (untrusted) with a read
 * key (with an older deployment's shared secret, the full key, until it is given its own).
 *
 * On Lambda the values come from Secrets Manager, cached per container with a TTL; `refresh()`
 * re-reads them at most once a minute (after a 401, a failed Slack signature or requester proof:
 * a rotation needs no redeploy, and bad requests cannot hammer Secrets Manager). Locally they come
 * from the environment (`CONSOLE_API_KEY`, ...). Secret values never appear in errors: only a
 * secret's id and a field's name do.
 */

import {
  GetSecretValueCommand,
  SecretsManagerClient,
  type SecretsManagerClientConfig,
} from '@aws-sdk/client-secrets-manager';
import type { RequesterKeys, Signer } from '../actions/proof.js';
import { ConfigError, optionalEnv } from '../config/env.js';
import { lazyClient } from '../util/lazy-client.js';
import { rememberSecret } from '../util/secret-scrub.js';
import { JSON_FIELDS, readSecretJson, SecretsError } from './secret-json.js';

export { SecretsError };

/**
 * The Slack incoming-webhook URL is a credential: it belongs in the secret, not in a committed and
 * bundled policy. The policy's field still works, so deployments keep their channel through the
 * upgrade; the secret's value wins when both are set.
 */
export const POLICY_WEBHOOK_URL_DEPRECATED =
  'notifications.slackWebhookUrl in the policy is deprecated: it is a credential committed to git and bundled into every function. Put it in the secret as "slackWebhookUrl" (SLACK_WEBHOOK_URL locally) and remove it from the policy; the secret wins when both are set.';

/** A function's credentials; a field it does not hold is '' or absent. */
export interface AutopilotSecretValues {
  /** The Console API key that may mutate (the worker's). */
  consoleApiKey: string;
  slackSigningSecret: string;
  /** A Console API key for reads only (webhook, sweeper); `consoleApiKey` stands in where an operator put only that. */
  consoleReadOnlyApiKey?: string;
  /** The Slack incoming-webhook URL of the notifications channel (a credential: anyone holding it can post). */
  slackWebhookUrl?: string;
  /** The signers' keys this function holds (src/actions/proof.ts). */
  requesterKeys?: RequesterKeys;
}

export type SecretField = Exclude<keyof AutopilotSecretValues, 'requesterKeys'>;

export interface SecretsProvider {
  get(): Promise<AutopilotSecretValues>;
  /** Asks the source again (rate-limited); returns true when it was actually re-read. */
  refresh(): Promise<boolean>;
  /** True when the values can change and be re-read later (Secrets Manager), not the environment's. */
  readonly rotates?: boolean;
  cached?(): AutopilotSecretValues | undefined; // at once when fresh in the cache: no wait at all
}

/** Which function reads: it decides which requester keys and which fields it must have. */
export type FunctionRole = 'webhook' | 'worker' | 'sweeper';

/** The requester keys each function holds: its own signer's, and the worker all of them. */
export const REQUESTER_KEYS_HELD: Readonly<Record<FunctionRole, readonly Signer[]>> = {
  webhook: ['webhook'],
  sweeper: ['sweeper'],
  worker: ['webhook', 'sweeper'],
};

export interface SecretsManagerProviderOptions {
  /** The function's JSON secret (fields above); optional for a function that needs none. */
  secretId?: string;
  /** Plain-string secrets holding the requester keys this function holds. */
  requesterKeyIds?: Partial<Record<Signer, string>>;
  /**
   * Fields the JSON secret must have (non-empty); the function refuses to work without them. A
   * list inside stands for "one of these" (the webhook's read-only key, or a full key).
   */
  required?: readonly (SecretField | readonly SecretField[])[];
  client?: Pick<SecretsManagerClient, 'send'>;
  /** For the client built when none is given (e.g. the webhook's timeouts). */
  clientConfig?: SecretsManagerClientConfig;
  ttlMs?: number;
  minRefreshIntervalMs?: number;
  now?: () => number;
  /** Told once per field of the JSON secret that is not ours (the function's logger; secret-json.ts). */
  warn?: (message: string) => void;
}

const emptyValues = (): Required<AutopilotSecretValues> => ({
  consoleApiKey: '',
  consoleReadOnlyApiKey: '',
  slackSigningSecret: '',
  slackWebhookUrl: '',
  requesterKeys: {},
});

export function secretsManagerProvider(options: SecretsManagerProviderOptions): SecretsProvider {
  // Built on the first read, not at init: it saves the cold start ~5 ms (util/lazy-client).
  const client = options.client ?? lazyClient(() => new SecretsManagerClient(options.clientConfig ?? {}));
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const minRefreshMs = options.minRefreshIntervalMs ?? 60_000;
  const now = options.now ?? Date.now;
  let cached: { value: AutopilotSecretValues; readAt: number } | undefined;
  /** The last read started, whether it succeeded or not: re-reads are limited by it. */
  let attemptedAt: number | undefined;
  let inflight: Promise<AutopilotSecretValues> | undefined;
  const fresh = () => (cached && now() - cached.readAt < ttlMs ? cached.value : undefined);
  const triedRecently = () => attemptedAt !== undefined && now() - attemptedAt < minRefreshMs;

  const readText = async (secretId: string): Promise<string> => {
    let text: string | undefined;
    try {
      const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      text = out.SecretString;
    } catch (error) {
      throw new SecretsError(`cannot read secret ${secretId}: ${(error as Error).name}`, { cause: error });
    }
    if (!text) throw new SecretsError(`secret ${secretId} has no string value`);
    return text;
  };

  const warned = new Set<string>(); // once per container, not at every re-read
  const readJson = async (secretId: string, value: Required<AutopilotSecretValues>): Promise<void> => {
    const { fields, warnings } = readSecretJson(secretId, await readText(secretId), options.required ?? []);
    Object.assign(value, fields);
    for (const { field, message } of warnings) {
      if (!warned.has(`${secretId}\n${field}`)) options.warn?.(message);
      warned.add(`${secretId}\n${field}`);
    }
  };

  const read = async (): Promise<AutopilotSecretValues> => {
    attemptedAt = now();
    const value = emptyValues();
    const reads: Array<Promise<void>> = [];
    if (options.secretId) reads.push(readJson(options.secretId, value));
    for (const [signer, id] of Object.entries(options.requesterKeyIds ?? {})) {
      reads.push(
        readText(id).then((key) => {
          value.requesterKeys[signer as Signer] = key;
        }),
      );
    }
    await Promise.all(reads);
    rememberSecrets(value);
    cached = { value, readAt: now() };
    return value;
  };
  const load = () => {
    inflight ??= read().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  return {
    async get() {
      const value = fresh();
      if (value) return value;
      // Past its TTL the value is read again; if Secrets Manager fails (throttled, unreachable),
      // the value read before stays in use and is not asked for again before minRefreshMs: a
      // blip neither fails every request nor turns into a read per request.
      if (cached && triedRecently()) return cached.value;
      try {
        return await load();
      } catch (error) {
        if (cached) return cached.value;
        throw error;
      }
    },
    async refresh() {
      // A read under way (a batch's calls all met a rotation's 401) is the re-read: wait for it.
      if (inflight) return inflight.then(() => true);
      // Limited by the last attempt, failed ones too: a flood of bad signatures or 401s while
      // Secrets Manager struggles must not become a flood of reads.
      if (triedRecently()) return false;
      await load();
      return true;
    },
    // Values may change (rotation): a refusal for a key not yet seen can wait for the next read.
    rotates: true,
    cached: fresh,
  };
}

type Env = Record<string, string | undefined>;

/** Every value of a secret is known to the scrubber, so no exit can print it in any encoding. */
function rememberSecrets(value: AutopilotSecretValues): void {
  for (const field of JSON_FIELDS) rememberSecret(value[field]);
  for (const key of Object.values(value.requesterKeys ?? {})) rememberSecret(key);
}

/** The variables that name each signer's key: `<SIGNER>_REQUESTER_KEY` locally, `..._SECRET_ID` on Lambda. */
export const requesterKeyVariable = (signer: Signer, secretId = false): string =>
  `${signer.toUpperCase()}_REQUESTER_KEY${secretId ? '_SECRET_ID' : ''}`;

/** The secrets the environment names for the requester keys `role` holds (Lambda). */
export function requesterKeyIdsFromEnv(env: Env, role?: FunctionRole): Partial<Record<Signer, string>> {
  const ids: Partial<Record<Signer, string>> = {};
  for (const signer of role ? REQUESTER_KEYS_HELD[role] : []) {
    const id = optionalEnv(requesterKeyVariable(signer, true), env);
    if (id) ids[signer] = id;
  }
  return ids;
}

/** The variable each field is read from locally. */
const LOCAL_VARIABLE: Readonly<Record<SecretField, string>> = {
  consoleApiKey: 'CONSOLE_API_KEY',
  consoleReadOnlyApiKey: 'CONSOLE_READ_ONLY_API_KEY',
  slackSigningSecret: 'SLACK_SIGNING_SECRET',
  slackWebhookUrl: 'SLACK_WEBHOOK_URL',
};

/**
 * Local and dev: the values straight from the environment (only the keys `role` holds).
 * `required` is checked at once, as the JSON secret's fields are on Lambda: a function started
 * without its Console API key fails at start naming the variable, rather than taking every
 * request, failing each call with "no key" and retrying it into the DLQ.
 */
export function environmentProvider(
  env: Env = process.env,
  role?: FunctionRole,
  required: readonly (SecretField | readonly SecretField[])[] = [],
): SecretsProvider {
  const value: Required<AutopilotSecretValues> = {
    consoleApiKey: optionalEnv(LOCAL_VARIABLE.consoleApiKey, env) ?? '',
    consoleReadOnlyApiKey: optionalEnv(LOCAL_VARIABLE.consoleReadOnlyApiKey, env) ?? '',
    slackSigningSecret: optionalEnv(LOCAL_VARIABLE.slackSigningSecret, env) ?? '',
    slackWebhookUrl: optionalEnv(LOCAL_VARIABLE.slackWebhookUrl, env) ?? '',
    requesterKeys: {},
  };
  for (const need of required) {
    const anyOf = typeof need === 'string' ? [need] : need;
    if (anyOf.every((field) => value[field] === '')) {
      const names = anyOf.map((field) => LOCAL_VARIABLE[field]).join(' or ');
      throw new ConfigError(`set ${names} (local), or AUTOPILOT_SECRET_ID (Lambda): this function needs it`);
    }
  }
  for (const signer of role ? REQUESTER_KEYS_HELD[role] : []) {
    const key = optionalEnv(requesterKeyVariable(signer), env);
    if (key) value.requesterKeys[signer] = key;
  }
  rememberSecrets(value);
  return {
    async get() {
      return value;
    },
    async refresh() {
      return false;
    },
    cached: () => value,
  };
}

/**
 * Secrets Manager when `AUTOPILOT_SECRET_ID` or a requester key's secret id is set, the
 * environment otherwise. `required` fields must be present in the JSON secret, or in the environment.
 */
export function secretsFromEnvironment(
  env: Env = process.env,
  role?: FunctionRole,
  required: readonly (SecretField | readonly SecretField[])[] = [],
  /** Clock for the cache's TTL and the refresh interval (tests). */
  now?: () => number,
  clientConfig?: SecretsManagerClientConfig,
  /** Where a field of the JSON secret we do not read is told (once per container). */
  warn?: (message: string) => void,
): SecretsProvider {
  const secretId = optionalEnv('AUTOPILOT_SECRET_ID', env);
  const requesterKeyIds = requesterKeyIdsFromEnv(env, role);
  if (!secretId && Object.keys(requesterKeyIds).length === 0) return environmentProvider(env, role, required);
  return secretsManagerProvider({
    ...(secretId ? { secretId } : {}),
    requesterKeyIds,
    required: secretId ? required : [],
    ...(now ? { now } : {}),
    ...(clientConfig ? { clientConfig } : {}),
    ...(warn ? { warn } : {}),
  });
}
