/**
 * A requester key rotated a moment ago. The signers (webhook, sweeper) cache their key for up
 * to five minutes (secrets.ts), so for a while after `put-secret-value` a warm signer still signs
 * with the version now labelled AWSPREVIOUS, and a worker that has read the new one would refuse
 * a person's command as unproven: dead-lettered, the person told nothing after "Queued". So the
 * worker, when a proof matches no current key, also tries the previous version, but only while
 * the current one is younger than ROTATION_GRACE_MS (the signers' cache lifetime, and as much
 * again): a key rotated out because it leaked stops being accepted ten minutes after the rotation.
 */
import {
  GetSecretValueCommand,
  SecretsManagerClient,
  type SecretsManagerClientConfig,
} from '@aws-sdk/client-secrets-manager';
import type { Signer } from '../actions/proof.js';
import { lazyClient } from '../util/lazy-client.js';
import { rememberSecret } from '../util/secret-scrub.js';
import { requesterKeyIdsFromEnv } from './secrets.js';

/** How long after a rotation the previous requester key is still accepted. */
export const ROTATION_GRACE_MS = 10 * 60_000;
/** A flood of bad proofs reads Secrets Manager at most this often per key. */
const MIN_READ_INTERVAL_MS = 60_000;

export interface PreviousRequesterKeys {
  /** The signer's previous key while its rotation is recent; undefined otherwise. */
  previous(signer: Signer): Promise<string | undefined>;
}

export function previousRequesterKeys(options: {
  requesterKeyIds: Partial<Record<Signer, string>>;
  now: () => number;
  clientConfig?: SecretsManagerClientConfig;
}): PreviousRequesterKeys {
  const client = lazyClient(() => new SecretsManagerClient(options.clientConfig ?? {}));
  // Each signer's last read, kept as its promise: the records of a batch asking while it is under
  // way wait for it (a read not yet answered is no "no previous key", which refused them for good).
  const read = new Map<
    Signer,
    { at: number; found: Promise<{ key?: string | undefined; rotatedAt?: number | undefined }> }
  >();
  const versions = async (secretId: string) => {
    // A secret never rotated has no AWSPREVIOUS: Secrets Manager answers ResourceNotFound.
    const [current, previous] = await Promise.all([
      client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: 'AWSCURRENT' })),
      client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: 'AWSPREVIOUS' })),
    ]);
    return { rotatedAt: current.CreatedDate?.getTime(), key: previous.SecretString || undefined };
  };
  return {
    async previous(signer) {
      const secretId = options.requesterKeyIds[signer];
      if (!secretId) return undefined;
      let known = read.get(signer);
      if (!known || options.now() - known.at >= MIN_READ_INTERVAL_MS) {
        const found = versions(secretId).then(
          (got) => {
            if (got.key) rememberSecret(got.key);
            return got;
          },
          () => ({}),
        );
        known = { at: options.now(), found };
        read.set(signer, known);
      }
      const { key, rotatedAt } = await known.found;
      if (!key || rotatedAt === undefined) return undefined;
      return options.now() - rotatedAt < ROTATION_GRACE_MS ? key : undefined;
    },
  };
}

/** The worker's: the secrets its environment names for the signers' keys (`<SIGNER>_REQUESTER_KEY_SECRET_ID`). */
export function previousKeysFromEnv(
  env: Record<string, string | undefined>,
  now: () => number,
  clientConfig?: SecretsManagerClientConfig,
): PreviousRequesterKeys {
  const requesterKeyIds = requesterKeyIdsFromEnv(env, 'worker');
  return previousRequesterKeys({ requesterKeyIds, now, ...(clientConfig ? { clientConfig } : {}) });
}
