/**
 * A secret that contains another secret the process knows (a key and a longer key that begins
 * with it, a webhook URL and a token inside it) is scrubbed whole, whichever was told first: the
 * forms of all secrets are replaced longest first. Replaced secret by secret, oldest first, the
 * shorter, older one was cut out of the longer one and left the rest of it in the text.
 */
import { expect, it } from 'vitest';
import { rememberSecret, scrubSecrets } from '../../src/util/secret-scrub.js';

const OLDER = 'ck_live_cafe0123456789';
const NEWER = `${OLDER}-rotated-beef9876`;

it('scrubs a newer secret that contains an older one whole, leaving no tail of it', () => {
  rememberSecret(OLDER);
  rememberSecret(NEWER);
  const scrubbed = scrubSecrets(`key=${NEWER} and ${OLDER}`);
  expect(scrubbed).toBe('key=[redacted] and [redacted]');
  expect(scrubSecrets(encodeURIComponent(`k=${NEWER}`))).not.toContain('beef9876');
});
