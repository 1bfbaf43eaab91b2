/**
 * The secrets this process holds, and one scrubber for every exit (logs, errors, audit records,
 * Slack posts). A secret echoed back by a peer may come in any encoding: raw, JSON `\u`-escaped
 * character by character, with `\/`, percent-encoded, base64, hex. `scrubSecrets` removes each of those
 * forms from a text; callers also scrub again after decoding (a parsed JSON string) and at the
 * last step before a line leaves the process, so that a key split across fields and joined by us
 * is caught as well. No dependencies but Slack's pure mrkdwn escape: it is on every handler's path.
 */
import { escapeMrkdwn } from '../slack/mrkdwn.js';

const REDACTED = '[redacted]';
/** Shorter values are not worth matching (and would match ordinary text). */
const MIN_LENGTH = 8;
/** The newest secrets only: enough for the current ones and a key just rotated out. */
const MAX_SECRETS = 16;

const secrets = new Map<string, string[]>();
/** The secret told last (the last key of `secrets`): told again, it stays where it is. */
let newest: string | undefined;
/**
 * Every form of every secret, longest first across all secrets: a secret that contains another
 * (a rotated key that begins with the old one, a URL holding a token) is replaced whole before the
 * shorter one could cut it and leave its tail. This and what follows are made when the set of
 * secrets changes, not per text: scrubbing runs on every string of every log line and reply, ~40 a
 * request; the order secrets were told in does not matter to it.
 */
let allForms: readonly string[] = [];
/**
 * The shortest form's length: a shorter text holds none of them, nor, decoded, any secret (no
 * secret is shorter than its own raw form, and decoding only shortens a text).
 */
let shortestForm = Number.POSITIVE_INFINITY;
/**
 * Matches wherever any form occurs (each form's characters escaped, so each alternative is that
 * literal): one scan of a text that holds none, where trying the forms one by one scanned it
 * once per form (~27 forms for three secrets; a reply and a log line are ~450 characters each).
 * When it matches, the forms are tried one by one, longest first. It depends on which
 * secrets are known, not on their order: a secret told again (the Console client tells its key
 * before every call) does not make it again.
 */
let anyForm = /(?!)/;

/** Runs of this many characters (MIN_LENGTH ≥ GRAM), hashed into a bitmap of the forms' runs. */
const GRAM = 4;
/**
 * 2^18 bits (32 KB): with five secrets of a deployed handler (key, token, signing secret, webhook
 * URL) it proved 57% of the sandbox's replies clean, 2^16 bits only 23% (more runs collide).
 */
const GRAM_BITS = 18;
const grams = new Uint32Array(1 << (GRAM_BITS - 5));
/** shortestForm - GRAM + 1: set with the forms (unused while no secret is known). */
let gramStep = 1;

/** Counts the changes of the set of secrets (not of their order): what `holdsSecrets` answered stays true until it moves. */
let version = 0;

function indexForms(): void {
  version++;
  allForms = [...secrets.values()].flat().sort((a, b) => b.length - a.length);
  anyForm = new RegExp(allForms.map((form) => form.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('|'));
  shortestForm = allForms.reduce(
    (shortest, form) => Math.min(shortest, form.length),
    Number.POSITIVE_INFINITY,
  );
  grams.fill(0);
  for (const form of allForms)
    for (let at = 0; at + GRAM <= form.length; at++) {
      const hash = gramAt(form, at);
      grams[hash >>> 5] = (grams[hash >>> 5] as number) | (1 << (hash & 31));
    }
  gramStep = shortestForm - GRAM + 1;
}

/**
 * A proof, cheaper than `anyForm`'s scan, that no form occurs in `text` (a clean reply, the usual
 * case: a Console client's scrub of a 2xx body took ~1.5 µs less at p50 with it, between other
 * requests that leave the regex's code cold; bench/client.bench.ts). A form of
 * length m at position s holds the runs of GRAM characters that start at s … s + m - GRAM: m - GRAM + 1
 * ≥ gramStep consecutive starts, so every gramStep-th start of `text` lands in one of them. When none
 * of those runs is a run of any form (its bit in `grams` clear), no form is there. False means maybe.
 * Any text may be asked (KeyRing.scrub asks of every reply, however short): one shorter than
 * `shortestForm` holds no form, and a maybe for it only costs the scan. Asked only while a secret
 * is known (`gramStep` is set then).
 */
export function holdsNoForm(text: string): boolean {
  for (let at = 0; at + GRAM <= text.length; at += gramStep) {
    const hash = gramAt(text, at);
    if ((grams[hash >>> 5] as number) & (1 << (hash & 31))) return false;
  }
  return true;
}

/**
 * The set of secrets' version, and whether every one of `values` is in it: each is then one of the
 * forms `holdsNoForm` rules out (a secret is its own first form, and never shorter than MIN_LENGTH).
 */
export function secretsVersion(): number {
  return version;
}

export function holdsSecrets(values: Iterable<string>): number | undefined {
  for (const value of values) if (!secrets.has(value)) return undefined;
  return version;
}

/** Every form of every known secret, longest first (what `holdsNoForm` vouches for, to test it). */
export function knownForms(): readonly string[] {
  return allForms;
}

/** The hash of the GRAM characters of `text` from `at` (collisions only make `holdsNoForm` say maybe). */
function gramAt(text: string, at: number): number {
  let hash = text.charCodeAt(at);
  for (let i = 1; i < GRAM; i++) hash = Math.imul(hash, 0x9e3779b1) ^ text.charCodeAt(at + i);
  return Math.imul(hash, 0x9e3779b1) >>> (32 - GRAM_BITS);
}

function hex(code: number, width: number, upper: boolean): string {
  const text = code.toString(16).padStart(width, '0');
  return upper ? text.toUpperCase() : text;
}

/**
 * Base64 of a secret that does not start the encoded text (`base64("key=" + secret)`): each of
 * the three byte alignments encodes it differently. Of each, only the characters that depend on
 * the secret's bytes alone: the groups of four that hold no byte before or after it.
 */
function base64Middles(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const first = Math.ceil(offset / 3); // the first group that starts inside the secret
    const end = Math.floor(padded.length / 3); // groups past this one reach beyond it
    if (end <= first) continue;
    for (const encoding of ['base64', 'base64url'] as const) {
      forms.push(padded.toString(encoding).slice(first * 4, end * 4));
    }
  }
  return forms;
}

/** The forms a secret can take in text a peer sends back. */
function formsOf(secret: string): string[] {
  const chars = [...secret];
  const forms = new Set<string>([
    secret,
    secret.replaceAll('/', '\\/'),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    chars.map((c) => `%${hex(c.charCodeAt(0), 2, true)}`).join(''),
    chars.map((c) => `%${hex(c.charCodeAt(0), 2, false)}`).join(''),
    chars.map((c) => `\\u${hex(c.charCodeAt(0), 4, false)}`).join(''),
    chars.map((c) => `\\u${hex(c.charCodeAt(0), 4, true)}`).join(''),
    // Mrkdwn-escaped, as every Slack post and reply spells untrusted text before its last scrub
    // (Slack shows `&amp;` as `&`).
    escapeMrkdwn(secret),
    Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, ''),
    Buffer.from(secret, 'utf8').toString('base64url').replace(/=+$/, ''),
    ...base64Middles(secret),
    // Hex, as a peer names a header's bytes it could not match (a dump, a debug page): each byte is
    // two digits, so the secret's run is the same wherever it starts in a longer dump.
    Buffer.from(secret, 'utf8').toString('hex'),
    Buffer.from(secret, 'utf8').toString('hex').toUpperCase(),
  ]);
  // Longest first, so a form that contains another is replaced whole.
  return [...forms].filter((f) => f.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * Tells the scrubber about a secret this process holds (a key, a signing secret, a webhook URL).
 * Told again, a known secret becomes the newest (its forms are kept): a secret in use stays in
 * the window however many others are learned after it was first told.
 */
export function rememberSecret(value: string | undefined): void {
  // Told again while still the newest (a client telling its key on every request): nothing moves.
  if (value === newest || !value || value.length < MIN_LENGTH) return;
  const forms = secrets.get(value);
  secrets.delete(value);
  secrets.set(value, forms ?? formsOf(value));
  newest = value;
  // The same secrets, only their order changed (it decides which is evicted, not the forms' order).
  if (forms) return;
  if (secrets.size > MAX_SECRETS) secrets.delete(secrets.keys().next().value as string);
  indexForms();
}

/** Removes every known secret, in every form, from `text` (`depth`: decodings already looked through). */
export function scrubSecrets(text: string, depth = 0): string {
  // No secret known (shortestForm is then infinite), or too short to hold any of their forms.
  if (text.length < shortestForm) return text;
  let out = text;
  if (!holdsNoForm(out) && anyForm.test(out))
    for (const form of allForms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return scrubEscaped(out, depth);
}

/**
 * `scrubSecrets(text)` for a text `holdsNoForm` has just vouched for (KeyRing.scrub asks it
 * first): the same result without proving it a second time (a scan of a reply's grams).
 */
export function scrubSecretsOfNoForm(text: string): string {
  return text.length < shortestForm ? text : scrubEscaped(text, 0);
}

/** What no form's scan finds: a secret spelled with escapes among plain characters, looked through at `depth`. */
function scrubEscaped(text: string, depth: number): string {
  let out = text;
  // A mix of escaped and plain characters: decode `\uXXXX` and `%XX` and look again. Only the
  // secret's own run is redacted: the rest stays as it was (decoding it all would undo escapes
  // made on purpose, e.g. a `%3C` that must not become a live `<!channel>`).
  // `includes` first: a plain scan, where the regex costs about as much again on a long line.
  if (depth > 2 || !(out.includes('%') || out.includes('\\u')) || !ESCAPE.test(out)) return out;
  const runs = encodedRuns(out);
  if (runs.length === 0) return out;
  // Right to left, so that the positions still to replace stay where they were.
  for (const [from, to] of runs.reverse()) out = out.slice(0, from) + REDACTED + out.slice(to);
  return scrubSecrets(out, depth + 1);
}

/**
 * Decodings looked through: a URL put in a query string is encoded once more each time (a Slack
 * webhook URL in a `redirect=` that is itself a parameter: `%25252F`). Each level is decoded only
 * while it still holds an escape, so ordinary text costs one decoding at most.
 */
const MAX_DECODINGS = 4;

/**
 * Where, in `text`, each known secret lies once decoded (one to `MAX_DECODINGS` times): the
 * ranges of `text`'s characters that spell it, sorted and merged (a run found at two levels, or
 * two secrets that overlap, is one range).
 */
function encodedRuns(text: string): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  let level = text;
  /** Where each character of `level` began in `text`. */
  let inText: number[] | undefined;
  for (let i = 0; i < MAX_DECODINGS && ESCAPE.test(level); i++) {
    const { decoded, starts } = decodeOnce(level);
    const at = inText ? starts.map((s) => inText?.[s] as number) : starts;
    for (const secret of secrets.keys()) {
      for (let p = decoded.indexOf(secret); p !== -1; p = decoded.indexOf(secret, p + 1))
        found.push([at[p] as number, at[p + secret.length] as number]);
    }
    level = decoded;
    inText = at;
  }
  found.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [from, to] of found) {
    const last = merged[merged.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

const ESCAPE = /\\u[0-9a-fA-F]{4}|%[0-9a-fA-F]{2}/;

/** `text` with each `\uXXXX` and `%XX` decoded once, and where each decoded character began in `text`. */
function decodeOnce(text: string): { decoded: string; starts: number[] } {
  let decoded = '';
  const starts: number[] = [];
  let last = 0;
  const copy = (to: number) => {
    for (; last < to; last++) {
      decoded += text[last];
      starts.push(last);
    }
  };
  for (const match of text.matchAll(/\\u([0-9a-fA-F]{4})|%([0-9a-fA-F]{2})/g)) {
    copy(match.index);
    decoded += String.fromCharCode(Number.parseInt((match[1] ?? match[2]) as string, 16));
    starts.push(match.index);
    last = match.index + match[0].length;
  }
  copy(text.length);
  starts.push(text.length);
  return { decoded, starts };
}

/** `scrubSecrets` on every string inside a JSON-like value (a parsed body, log fields). */
export function scrubDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return scrubSecrets(value) as T;
  if (value === null || typeof value !== 'object' || secrets.size === 0) return value;
  // Nothing deeper leaves unscrubbed: no message of ours nests this far (Slack blocks: about 6).
  if (depth > 32) return '[nested too deep]' as T;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  // Keys, then each value read once: Object.entries' pair arrays are garbage on every reply.
  for (const key of Object.keys(value))
    out[scrubSecrets(key)] = scrubDeep((value as Record<string, unknown>)[key], depth + 1);
  return out as T;
}
