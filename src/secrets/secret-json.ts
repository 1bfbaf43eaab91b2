/**
 * A function's JSON secret read into the fields we know, with a word about every field we do not.
 * An ignored field used to be silent: the worker's `slackWebHookUrl` (one letter's case off) read
 * as "no channel", so every `ask` was denied. Now:
 *
 * - a near-miss of one of our fields that the secret lacks fails the read, naming both: the
 *   function would otherwise run as if the field were unset (no channel; the webhook reading with
 *   the full key), and a warning may go unread where failing records alarm and are retried;
 * - any other unknown field is a warning (the caller logs it once per container).
 *
 * Values never appear, and every string value is handed to the scrubber (a misspelt field's value
 * is a credential too). A field's name is shown only when it looks like one, not a pasted value.
 */
import { rememberSecret } from '../util/secret-scrub.js';
import type { SecretField } from './secrets.js';

export class SecretsError extends Error {
  override name = 'SecretsError';
}

/** The fields of every function's JSON secret (the table in secrets.ts). */
export const JSON_FIELDS = [
  'consoleApiKey',
  'consoleReadOnlyApiKey',
  'slackSigningSecret',
  'slackWebhookUrl',
] as const satisfies readonly SecretField[];
type JsonField = (typeof JSON_FIELDS)[number];

/**
 * The field Secrets Manager fills with a random string in a secret the stack creates (its
 * `generateStringKey`, infra/autopilot-stack.ts): ours, never read, never warned about.
 */
export const GENERATED_FILLER_FIELD = 'unused';

export interface SecretJson {
  fields: Partial<Record<JsonField, string>>;
  /** One line per field we do not read: its name (when safe to show) and our nearest field. */
  warnings: Array<{ field: string; message: string }>;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, substitution);
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * Our field nearest `name`, whether `name` is a near-miss of it (case, a few letters, a part of
 * it), and whether it is within a few letters (`close`: it cannot hold more than those of a value).
 */
function nearestField(name: string): { field: JsonField; near: boolean; close: boolean } {
  const lower = name.trim().toLowerCase();
  let best: { field: JsonField; distance: number; near: boolean } | undefined;
  for (const field of JSON_FIELDS) {
    const fl = field.toLowerCase();
    const distance = editDistance(lower, fl);
    const part = Math.min(lower.length, fl.length) >= 6 && (fl.includes(lower) || lower.includes(fl));
    const near = distance <= 3 || part;
    if (!best || Number(near) > Number(best.near) || (near === best.near && distance < best.distance))
      best = { field, distance, near };
  }
  return { field: best!.field, near: best!.near, close: best!.distance <= 3 };
}

/**
 * A name is shown only when short, and either within a few letters of ours (whatever its
 * characters, so `"slackWebhookUrl "` shows its space) or shaped like a field name: a key pasted
 * as a name is never echoed. Shaped like a name is more than letters first: a Slack signing
 * secret (32 hex characters, a letter first a third of the time) and an access key id (`AKIA`
 * and 16 upper-case letters and digits) pass that, and so does `consoleApiKey=<value>` as a part
 * of ours; so at most 3 digits, not all hex, not all upper-case letters and digits.
 */
const showable = (name: string, close: boolean): boolean =>
  name.length <= 32 &&
  (close ||
    (/^[A-Za-z][A-Za-z0-9_.-]*$/.test(name) &&
      (name.match(/\d/g)?.length ?? 0) <= 3 &&
      !/^[0-9a-f]{16,}$/i.test(name) &&
      !/^[A-Z0-9]{12,}$/.test(name)));

/** Parses `text`, the secret `secretId`'s string; throws SecretsError with names only, never a value. */
export function readSecretJson(
  secretId: string,
  text: string,
  required: readonly (SecretField | readonly SecretField[])[],
): SecretJson {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SecretsError(`secret ${secretId} is not a JSON object`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    throw new SecretsError(`secret ${secretId} is not a JSON object`);
  const entries = Object.entries(json as Record<string, unknown>);
  for (const [, v] of entries) if (typeof v === 'string') rememberSecret(v);
  const fields: SecretJson['fields'] = {};
  const unknown: Array<{ name: string; field: JsonField; near: boolean; close: boolean }> = [];
  for (const [name, v] of entries) {
    if ((JSON_FIELDS as readonly string[]).includes(name)) {
      if (typeof v === 'string') fields[name as JsonField] = v;
      else if (v !== null) throw new SecretsError(`secret ${secretId}: field "${name}" must be a string`);
    } else if (name !== GENERATED_FILLER_FIELD) unknown.push({ name, ...nearestField(name) });
  }
  const shown = (u: { name: string; close: boolean }) =>
    showable(u.name, u.close)
      ? JSON.stringify(u.name)
      : `whose name is not shown (${u.name.length} characters)`;
  const misspelt = unknown.find((u) => u.near && !fields[u.field]);
  if (misspelt)
    throw new SecretsError(
      `secret ${secretId} has a field ${shown(misspelt)} that console-autopilot does not read: did you mean "${misspelt.field}"? Rename it; without "${misspelt.field}" the function would run as if it were not set`,
    );
  for (const need of required) {
    const anyOf = typeof need === 'string' ? [need] : need;
    if (anyOf.every((field) => !fields[field]))
      throw new SecretsError(`secret ${secretId} lacks "${anyOf.join('" or "')}"`);
  }
  const warnings = unknown.map((u) => ({
    field: u.name,
    message: `secret ${secretId}: field ${shown(u)} is not one console-autopilot reads, and is ignored: did you mean "${u.field}"?`,
  }));
  return { fields, warnings };
}
