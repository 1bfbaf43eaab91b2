/** Durations and instants as the CLI takes them: `90s`, `15m`, `24h`, `30d`, or an ISO instant with offset. */
import * as z from 'zod/mini';
import { UsageError } from './errors.js';

const DURATION = /^(\d+)([smhd])$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s`, `15m`, `2h`, `30d` → milliseconds; undefined when it is none of those. */
export function durationMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : undefined;
}

/**
 * An ISO 8601 instant with an offset, seconds optional (2026-11-23T10:00+01:00, as a person types
 * it); undefined for anything else, an impossible date too (2026-02-30 is not read as 2 March).
 */
export function isoInstant(text: string): Date | undefined {
  const instant = (precision?: -1) => z.iso.datetime({ offset: true, ...(precision ? { precision } : {}) });
  const valid = instant().safeParse(text).success || instant(-1).safeParse(text).success;
  return valid ? new Date(text) : undefined;
}

/** `--since`: that long before `now`, or an ISO instant with an offset; a usage error otherwise. */
export function sinceInstant(text: string, now: Date, usage = ''): Date {
  const back = durationMs(text);
  // A duration reaching before any date (99999999999d) is no time to read from: said here, not
  // later as a failed read of the table.
  const at = back !== undefined ? new Date(now.getTime() - back) : isoInstant(text);
  if (!at || Number.isNaN(at.getTime()))
    throw new UsageError(
      `--since must be like 30d, 24h, 90m or an ISO instant with offset; got "${text}"`,
      usage,
    );
  return at;
}
