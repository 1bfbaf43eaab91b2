/**
 * Where the Console API key and the Slack signing secret come from. On Lambda: one Secrets
 * Manager secret (`AUTOPILOT_SECRET_ID`, JSON `{consoleApiKey, slackSigningSecret}`), cached
 * per container with a TTL; `refresh()` re-reads it at most once a minute, so a rotated
 * secret is picked up without a redeploy and a flood of bad signatures cannot hammer
 * Secrets Manager. Locally: `CONSOLE_API_KEY` and `SLACK_SIGNING_SECRET`.
 * Secret values never appear in errors: only the secret's id and the field's name do.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { optionalEnv } from '../config/env.js';
import { lazyClient } from '../util/lazy-client.js';

export class SecretsError extends Error {
  override name = 'SecretsError';
}

export interface AutopilotSecretValues {
  consoleApiKey: string;
  slackSigningSecret: string;
}

export interface SecretsProvider {
  get(): Promise<AutopilotSecretValues>;
  /** Asks the source again (rate-limited); returns true when it was actually re-read. */
  refresh(): Promise<boolean>;
}

export interface SecretsManagerProviderOptions {
  secretId: string;
  client?: Pick<SecretsManagerClient, 'send'>;
  ttlMs?: number;
  minRefreshIntervalMs?: number;
  now?: () => number;
}

export function secretsManagerProvider(options: SecretsManagerProviderOptions): SecretsProvider {
  // Built on the first read, not at init: it saves the cold start ~5 ms (util/lazy-client).
  const client = options.client ?? lazyClient(() => new SecretsManagerClient({}));
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const minRefreshMs = options.minRefreshIntervalMs ?? 60_000;
  const now = options.now ?? Date.now;
  let cached: { value: AutopilotSecretValues; readAt: number } | undefined;
  let inflight: Promise<AutopilotSecretValues> | undefined;

  const read = async (): Promise<AutopilotSecretValues> => {
    let text: string | undefined;
    try {
      const out = await client.send(new GetSecretValueCommand({ SecretId: options.secretId }));
      text = out.SecretString;
    } catch (error) {
      throw new SecretsError(`cannot read secret ${options.secretId}: ${(error as Error).name}`, {
        cause: error,
      });
    }
    if (!text) throw new SecretsError(`secret ${options.secretId} has no string value`);
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text);
    } catch {
      throw new SecretsError(`secret ${options.secretId} is not JSON {"consoleApiKey","slackSigningSecret"}`);
    }
    const value = { consoleApiKey: json.consoleApiKey, slackSigningSecret: json.slackSigningSecret };
    for (const [field, v] of Object.entries(value)) {
      if (typeof v !== 'string' || v === '')
        throw new SecretsError(`secret ${options.secretId} lacks "${field}"`);
    }
    cached = { value: value as AutopilotSecretValues, readAt: now() };
    return cached.value;
  };
  const load = () => {
    inflight ??= read().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  return {
    async get() {
      if (cached && now() - cached.readAt < ttlMs) return cached.value;
      return load();
    },
    async refresh() {
      if (cached && now() - cached.readAt < minRefreshMs) return false;
      await load();
      return true;
    },
  };
}

/** Local and dev: the values straight from the environment. */
export function environmentProvider(env: Record<string, string | undefined> = process.env): SecretsProvider {
  const value = {
    consoleApiKey: optionalEnv('CONSOLE_API_KEY', env) ?? '',
    slackSigningSecret: optionalEnv('SLACK_SIGNING_SECRET', env) ?? '',
  };
  return {
    async get() {
      return value;
    },
    async refresh() {
      return false;
    },
  };
}

/** Secrets Manager when `AUTOPILOT_SECRET_ID` is set, the environment otherwise. */
export function secretsFromEnvironment(
  env: Record<string, string | undefined> = process.env,
): SecretsProvider {
  const secretId = optionalEnv('AUTOPILOT_SECRET_ID', env);
  return secretId ? secretsManagerProvider({ secretId }) : environmentProvider(env);
}
