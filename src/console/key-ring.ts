/**
 * The API keys one transport has used: the forms it scrubs from what the server echoes, the
 * process scrubber told of them, and the request headers that carry the current one.
 */
import {
  holdsNoForm,
  holdsSecrets,
  rememberSecret,
  scrubSecrets,
  scrubSecretsOfNoForm,
  secretsVersion,
} from '../util/secret-scrub.js';
import { ConsoleError } from './errors.js';

/** The last few keys (enough for echoes of a key just rotated out). */
const KEPT_KEYS = 8;

export class KeyRing {
  private readonly known = new Set<string>();
  private plain: { key: string; headers: Readonly<Record<string, string>> } | undefined;
  /** The process scrubber's version at which it held every key here (undefined: not known to). */
  private heldAt: number | undefined;

  /**
   * The key as sent: trimmed (as undici or the server's parser would), both forms scrubbed from
   * echoes (and pushed onto `forms`). Only printable ASCII is sent: anything else throws.
   */
  remember(raw: string, forms: string[] = []): string {
    const key = raw.trim();
    for (const form of new Set([raw, key])) {
      if (!this.known.has(form)) this.heldAt = undefined;
      this.known.add(form);
      rememberSecret(form);
      forms.push(form);
    }
    while (this.known.size > KEPT_KEYS) this.known.delete(this.known.values().next().value as string);
    if (!/^[ -~]+$/.test(key))
      throw new ConsoleError('the API key is empty or holds characters other than printable ASCII');
    return key;
  }

  /** Request headers; without a body or review header, one frozen object per key (the sender only reads it). */
  headers(key: string, hasBody: boolean, review: boolean): Record<string, string> {
    if (!hasBody && !review) {
      if (this.plain?.key !== key)
        this.plain = { key, headers: Object.freeze({ accept: 'application/json', 'SERVICE-API-KEY': key }) };
      return this.plain.headers;
    }
    const headers: Record<string, string> = { accept: 'application/json', 'SERVICE-API-KEY': key };
    if (hasBody) headers['content-type'] = 'application/json';
    if (review) headers['x-respect-review-settings'] = 'true';
    return headers;
  }

  /** Removes any key this transport has used (and every secret the process holds, in any encoding) from text the server sent back. */
  scrub(text: string): string {
    // While the process scrubber holds every key here, a text it proves free of its forms holds
    // none of them: the loop below would change nothing (a scan per key less on every reply),
    // nor would the scrubber's own pass over the forms (the same proof, not made twice).
    if (this.heldAt !== secretsVersion()) this.heldAt = holdsSecrets(this.known);
    if (this.heldAt !== undefined && holdsNoForm(text)) return scrubSecretsOfNoForm(text);
    let out = text;
    for (const key of this.known) {
      if (key.length >= 4 && out.includes(key)) out = out.split(key).join('[redacted]');
    }
    return scrubSecrets(out);
  }
}
