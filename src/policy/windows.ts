/**
 * Wall-clock time in an IANA zone, for policy windows and daily counters. Windows are read the
 * way people read them: "Mon–Fri 09:00–17:00 Europe/Berlin" means whenever a clock on the wall
 * in Berlin shows a weekday between 09:00 and 17:00. That settles daylight-saving changes:
 * - spring forward (02:00 → 03:00): a window opening in the skipped hour opens at the jump;
 * - fall back (03:00 → 02:00): a wall time that occurs twice is inside its window both times,
 *   and the next opening is its first occurrence.
 * A window whose end is earlier than its start crosses midnight (22:00–06:00): its `days` name
 * the day it starts on. `24:00` is the end of the day.
 *
 * Only `Intl.DateTimeFormat` is used (no timezone library): formatters are cached per zone.
 */
import type { TimeWindow } from './schema.js';

export type Weekday = TimeWindow['days'][number];
export const WEEKDAYS: readonly Weekday[] = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** What a clock in `zone` shows at an instant. `weekday` is 0 for Sunday. */
export interface WallTime {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number; // 0-23
  minute: number;
  second: number;
  weekday: number;
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(zone: string): Intl.DateTimeFormat {
  let formatter = partsFormatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      // h23, not hour12:false: some ICU versions print midnight as "24" with hour12:false.
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    partsFormatters.set(zone, formatter);
  }
  return formatter;
}

/** The wall time in `zone` at `instant` (epoch ms). */
export function wallTime(instant: number, zone: string): WallTime {
  const parts = partsFormatter(zone).formatToParts(new Date(instant));
  const get = (type: Intl.DateTimeFormatPartTypes): number => {
    const part = parts.find((p) => p.type === type);
    return part ? Number(part.value) : 0;
  };
  const era = parts.find((p) => p.type === 'era')?.value;
  const yearOfEra = get('year');
  const year = era === 'BC' || era === 'B' ? 1 - yearOfEra : yearOfEra;
  const month = get('month');
  const day = get('day');
  return {
    year,
    month,
    day,
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
    weekday: new Date(utcOfWall(year, month, day)).getUTCDay(),
  };
}

/** The wall time as if it were UTC: a plain number to compare and subtract wall times with. */
function utcOfWall(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** The zone's offset from UTC at `instant`, in ms (east positive), to the second. */
export function offsetAt(instant: number, zone: string): number {
  const seconds = Math.floor(instant / 1000) * 1000;
  const w = wallTime(seconds, zone);
  return utcOfWall(w.year, w.month, w.day, w.hour, w.minute, w.second) - seconds;
}

/** The first instant in (from, to] whose offset differs from the offset at `from` (the caller knows one exists). */
function transitionBetween(from: number, to: number, zone: string): number {
  const before = offsetAt(from, zone);
  // Offsets change on whole seconds: the search runs over whole seconds (~17 halvings for a day),
  // whatever the ends' milliseconds. Halving in steps of whole seconds from an end with
  // milliseconds never got below two seconds apart: an endless loop (wallHour passes any instant).
  let low = Math.floor(from / 1000);
  let high = Math.ceil(to / 1000);
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (offsetAt(mid * 1000, zone) === before) low = mid;
    else high = mid;
  }
  return high * 1000;
}

/** Every offset change in [from, to], assuming at most one per day (true of every zone in use). */
export function transitionsBetween(from: number, to: number, zone: string): number[] {
  const found: number[] = [];
  let start = from;
  let startOffset = offsetAt(start, zone);
  while (start < to) {
    const end = Math.min(start + DAY, to);
    const endOffset = offsetAt(end, zone);
    if (endOffset !== startOffset) found.push(transitionBetween(start, end, zone));
    start = end;
    startOffset = endOffset;
  }
  return found;
}

/**
 * The instants at which a clock in `zone` shows the given wall time: one usually, two in a
 * fall-back repeat (earliest first). In a spring-forward gap the wall time never shows; the
 * result is then the instant of the jump, when the clock first shows a later time.
 */
export function instantsOfWallTime(
  date: { year: number; month: number; day: number },
  minutesOfDay: number,
  zone: string,
): number[] {
  const wall = utcOfWall(date.year, date.month, date.day) + minutesOfDay * MINUTE;
  // Offsets in use around this wall time: every zone's offset is within ±1 day of UTC.
  const offsets = new Set([offsetAt(wall - DAY, zone), offsetAt(wall, zone), offsetAt(wall + DAY, zone)]);
  const found = [...offsets]
    .map((offset) => wall - offset)
    .filter((instant) => offsetAt(instant, zone) === wall - instant)
    .sort((a, b) => a - b);
  if (found.length > 0) return [...new Set(found)];
  // A gap: the jump lies between the instant read with the later offset and the one read with the earlier.
  const candidates = [...offsets].map((offset) => wall - offset).sort((a, b) => a - b);
  const first = candidates[0] ?? wall;
  const last = candidates[candidates.length - 1] ?? wall;
  return [transitionBetween(first - 1000, last, zone)];
}

/** The first instant of a wall-clock day: local midnight, or the jump when midnight is skipped. */
export function startOfWallDay(date: { year: number; month: number; day: number }, zone: string): number {
  return instantsOfWallTime(date, 0, zone)[0] ?? utcOfWall(date.year, date.month, date.day);
}

/** The calendar day in `zone` containing `instant`: its date and its bounds (23, 24 or 25 hours long). */
export function wallDay(instant: number, zone: string): { date: string; start: number; end: number } {
  const w = wallTime(instant, zone);
  const next = addDays(w, 1);
  return {
    date: `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`,
    start: startOfWallDay(w, zone),
    end: startOfWallDay(next, zone),
  };
}

/**
 * The clock hour in `zone` containing `instant`: from when the clock last showed hh:00 (or the
 * offset change that brought it into this hour) to when it next shows another hour. Where the
 * offset is whole hours these are UTC hours; in Asia/Kolkata (+05:30) 10:00–11:00 is 04:30–05:30 UTC.
 * A fall-back repeat of an hour is two clock hours, one per offset.
 */
export function wallHour(instant: number, zone: string): { start: number; end: number } {
  const w = wallTime(instant, zone);
  const top = instant - (w.minute * 60 + w.second) * 1000 - (((instant % 1000) + 1000) % 1000);
  const since = transitionsBetween(top, instant, zone);
  const until = transitionsBetween(instant, top + HOUR, zone);
  return { start: since[since.length - 1] ?? top, end: until[0] ?? top + HOUR };
}

function addDays(date: { year: number; month: number; day: number }, days: number) {
  const moved = new Date(utcOfWall(date.year, date.month, date.day) + days * DAY);
  return {
    year: moved.getUTCFullYear(),
    month: moved.getUTCMonth() + 1,
    day: moved.getUTCDate(),
    weekday: moved.getUTCDay(),
  };
}

export function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** Minutes since midnight of `HH:MM`; `24:00` is 1440. */
export function minutesOf(clock: string): number {
  const [hours, minutes] = clock.split(':');
  return Number(hours) * 60 + Number(minutes);
}

function windowContains(window: TimeWindow, weekday: number, secondOfDay: number): boolean {
  const start = minutesOf(window.start) * 60;
  const end = minutesOf(window.end) * 60;
  const today = WEEKDAYS[weekday] as Weekday;
  const yesterday = WEEKDAYS[(weekday + 6) % 7] as Weekday;
  if (start < end) return window.days.includes(today) && secondOfDay >= start && secondOfDay < end;
  // Crosses midnight: the evening part belongs to `today`, the morning part to the day it started on.
  return (
    (window.days.includes(today) && secondOfDay >= start) ||
    (window.days.includes(yesterday) && secondOfDay < end)
  );
}

/** True when a clock in `zone` shows, at `instant`, a time inside one of `windows`. */
export function isWithinWindows(windows: readonly TimeWindow[], instant: number, zone: string): boolean {
  const w = wallTime(instant, zone);
  const secondOfDay = w.hour * 3600 + w.minute * 60 + w.second;
  return windows.some((window) => windowContains(window, w.weekday, secondOfDay));
}

/**
 * Whether `windows` are closed at some instant in [from, to]. They close only when the clock
 * reaches a window's end (or the jump, if the end is skipped) or the zone's offset changes, so
 * those instants are the candidates; days are scanned from the day before `from` to past `to`.
 */
export function closedBetween(
  windows: readonly TimeWindow[],
  from: number,
  to: number,
  zone: string,
): boolean {
  if (!isWithinWindows(windows, from, zone)) return true;
  const inside = (candidate: number) =>
    candidate <= from || candidate > to || isWithinWindows(windows, candidate, zone);
  const first = wallTime(from, zone);
  for (let offset = -1; ; offset++) {
    const date = addDays(first, offset);
    if (utcOfWall(date.year, date.month, date.day) - DAY > to) break;
    for (const window of windows)
      if (!instantsOfWallTime(date, minutesOf(window.end), zone).every(inside)) return true;
  }
  return !transitionsBetween(from, to, zone).every(inside);
}

/**
 * The first instant after `instant` at which one of `windows` is open, or undefined when
 * none opens within eight days (impossible for a valid window: each names a weekday).
 * A window can only open when the clock reaches a window's start time or when the zone's
 * offset changes (a fall-back can move the clock back into a window), so those instants are
 * the candidates; the earliest one inside a window wins. Dates are scanned in order and the
 * scan stops once they are past the best candidate, so the usual case costs a few lookups.
 */
export function nextWindowOpening(
  windows: readonly TimeWindow[],
  instant: number,
  zone: string,
): number | undefined {
  const horizon = instant + 9 * DAY;
  const today = wallTime(instant, zone);
  let best: number | undefined;
  const consider = (candidate: number) => {
    if (candidate <= instant || candidate > horizon) return;
    if (best !== undefined && candidate >= best) return;
    if (isWithinWindows(windows, candidate, zone)) best = candidate;
  };
  for (let offset = -1; offset <= 8; offset++) {
    const date = addDays(today, offset);
    // Wall dates run in order: once a date begins (at the earliest, a day before its UTC midnight) after the best, stop.
    if (best !== undefined && utcOfWall(date.year, date.month, date.day) - DAY > best) break;
    const weekday = WEEKDAYS[date.weekday] as Weekday;
    for (const window of windows) {
      if (window.days.includes(weekday)) {
        for (const candidate of instantsOfWallTime(date, minutesOf(window.start), zone)) consider(candidate);
      }
    }
  }
  for (const transition of transitionsBetween(instant, best ?? horizon, zone)) consider(transition);
  return best;
}
