/**
 * A stable identity for logged events, which carry no id of their own: a hash of the
 * timestamp, name, source, userID, value and the metadata in canonical form (keys sorted at
 * every level). Two events with the same content in the same millisecond are told apart by
 * their occurrence number at that timestamp (`<hash>.<n>`), which the cursor counts.
 */
import { createHash } from 'node:crypto';
import type { EventLike } from './types.js';

/** Levels of nesting read; deeper is one marker (a client wrote it: 5,000 levels overflowed the stack). */
const MAX_DEPTH = 64;

/** JSON with object keys sorted at every level, so equal content always hashes the same. */
export function canonicalJson(value: unknown, depth = 0): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth >= MAX_DEPTH) return '"…"';
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map(
      (key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key], depth + 1)}`,
    );
  return `{${entries.join(',')}}`;
}

/** 20 hex characters (80 bits) of SHA-256 over the event's content. */
export function eventHash(event: EventLike): string {
  const content = canonicalJson([
    event.timestamp,
    event.name,
    event.source ?? null,
    event.userID ?? null,
    event.value ?? null,
    event.metadata ?? {},
  ]);
  return createHash('sha256').update(content).digest('hex').slice(0, 20);
}

/** A short hash of any string, for building ids that must fit a character set. */
export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/** Lower-case, letters/digits/dash only, bounded: a readable part of a request id. */
export function slug(text: string, max = 32): string {
  const out = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return out.slice(0, max) || 'x';
}

/** Epoch ms a Date can hold (±100,000,000 days); beyond it no clock ever was. */
const MAX_DATE_MS = 8.64e15;

/**
 * The epoch-millisecond timestamp of an event, or NaN when it is not one. A client SDK writes
 * it: only a plain integer a Date can hold counts ("1e200", "Infinity", "0x10", "" do not; a
 * number DynamoDB refuses would stop every run at the flush that stores it).
 */
export function eventTime(event: EventLike): number {
  const raw = event.timestamp as unknown;
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^-?\d{1,16}$/.test(text)) return Number.NaN;
  const ms = Number(text);
  return Math.abs(ms) <= MAX_DATE_MS ? ms : Number.NaN;
}
