/**
 * The times of a policy test case (`at`, `requestedAt`): an ISO instant with an offset, or a wall
 * time in the policy's zone, refused rather than guessed when no calendar or clock shows it, or
 * when daylight saving makes it never or twice show (src/policy/cases.ts).
 */
import { CaseError } from './errors.js';
import { instantsOfWallTime, wallTime } from './windows.js';

const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;
function daysInMonth(year: number, month: number): number {
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return last.getUTCDate();
}

/**
 * Refuses a date or time of day that no calendar or clock shows: `Date` and the wall-time
 * arithmetic would roll 2026-11-31 over to 1 December, and 24:00 over to the next day.
 */
function checkFields(text: string, [year, month, day, hour, minute, second]: number[]): void {
  const date = text.slice(0, 10);
  if (month! < 1 || month! > 12) throw new CaseError(`${date} is not a date: months run from 01 to 12`);
  const days = daysInMonth(year!, month!);
  if (day! < 1 || day! > days) {
    const name = new Intl.DateTimeFormat('en', { month: 'long', timeZone: 'UTC' }).format(
      Date.UTC(2000, month! - 1),
    );
    throw new CaseError(`${date} is not a date: ${name} ${year} has ${days} days`);
  }
  const time = text.slice(11).replace(/(Z|[+-]\d{2}:\d{2})$/, '');
  if (hour! > 23)
    throw new CaseError(
      `${time} is not a time of day: hours run from 00 to 23 (24:00 is 00:00 of the next day)`,
    );
  if (minute! > 59 || second! > 59)
    throw new CaseError(`${time} is not a time of day: minutes and seconds run from 00 to 59`);
}

/** An instant from an ISO time with an offset, or from a wall time in `zone` (refusing one that never or twice shows). */
export function caseInstant(text: string, zone: string): Date {
  const m = TIME.exec(text);
  if (!m)
    throw new CaseError(
      `"${text}" is neither an ISO instant with an offset nor a wall time like 2026-11-30T09:00`,
    );
  const fields = m.slice(1, 7).map((v) => Number(v ?? 0));
  checkFields(text, fields);
  if (m[7] !== undefined) {
    const ms = Date.parse(text);
    if (Number.isNaN(ms)) throw new CaseError(`"${text}" is not a time`);
    return new Date(ms);
  }
  const [year, month, day, hour, minute, second] = fields as [number, number, number, number, number, number];
  const found = instantsOfWallTime({ year, month, day }, hour * 60 + minute, zone).map(
    (ms) => ms + second * 1000,
  );
  const shows = found.filter((ms) => {
    const wall = wallTime(ms, zone);
    return (
      wall.year === year &&
      wall.month === month &&
      wall.day === day &&
      wall.hour === hour &&
      wall.minute === minute
    );
  });
  if (shows.length === 0)
    throw new CaseError(`${text} never shows on clocks in ${zone} (a daylight-saving gap)`);
  if (shows.length > 1)
    throw new CaseError(`${text} shows twice in ${zone} (daylight saving ends): give an offset to say which`);
  return new Date(shows[0]!);
}
