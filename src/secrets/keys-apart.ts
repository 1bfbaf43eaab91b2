/**
 * A function's secrets, and the provider its signer reads its requester key from. For the webhook
 * these are two providers. Read together (one read of its JSON secret and its key), a requester key
 * that could not be read (its secret deleted, a KMS key policy, the role's read) failed the whole
 * read. The Slack signature check needs that read, so every request was answered 503, read
 * commands too. The signer was never reached, so RequestsNotSigned never counted and the
 * WebhookCannotSign alarm, whose runbook is about exactly this key, never fired. Read apart, only
 * the requests the key signs fail: they are answered "not queued" and counted.
 * The worker and the sweeper keep one read: they can do nothing of use without every key they hold.
 */
import { SecretsManagerClient, type SecretsManagerClientConfig } from '@aws-sdk/client-secrets-manager';
import type { Signer } from '../actions/proof.js';
import { optionalEnv } from '../config/env.js';
import { lazyClient } from '../util/lazy-client.js';
import {
  environmentProvider,
  type FunctionRole,
  requesterKeyIdsFromEnv,
  requesterKeyVariable,
  type SecretField,
  type SecretsProvider,
  secretsFromEnvironment,
  secretsManagerProvider,
} from './secrets.js';

type Env = Record<string, string | undefined>;

export function secretsApart(
  env: Env,
  role: FunctionRole,
  required: readonly (SecretField | readonly SecretField[])[],
  now: () => number,
  clientConfig: SecretsManagerClientConfig,
  warn: (message: string) => void,
): { secrets: SecretsProvider; keys: SecretsProvider } {
  const ids = role === 'webhook' ? requesterKeyIdsFromEnv(env, role) : {};
  if (Object.keys(ids).length === 0) {
    const secrets = secretsFromEnvironment(env, role, required, now, clientConfig, warn);
    return { secrets, keys: secrets };
  }
  // One client for both (one connection on a cold start, as one provider had).
  const client = lazyClient(() => new SecretsManagerClient(clientConfig));
  const keys = secretsManagerProvider({ requesterKeyIds: ids, client, now });
  const secretId = optionalEnv('AUTOPILOT_SECRET_ID', env);
  const own: Env = { ...env };
  for (const signer of Object.keys(ids)) delete own[requesterKeyVariable(signer as Signer, true)];
  const main = secretId
    ? secretsManagerProvider({ secretId, required, client, now, warn })
    : environmentProvider(own, role, required);
  return {
    // Each read of the JSON secret also starts the key's (cached: a lookup), so a cold mutation
    // waits for the two reads side by side, as it did for the one; the signer sees its failure.
    secrets: {
      ...main,
      get: () => {
        keys.get().catch(() => undefined);
        return main.get();
      },
    },
    keys,
  };
}
