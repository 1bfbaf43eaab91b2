/**
 * Times and windows in words for decisions and summaries: "Mon–Fri 09:00–17:00 Europe/Berlin",
 * "Tue 3 Mar 09:00 CET". Pure; reads wall time through windows.ts.
 */
import type { TimeWindow } from './schema.js';
import { pad, WEEKDAYS, type Weekday, wallTime } from './windows.js';

const DAY_LABELS: Record<Weekday, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};
const WEEK_ORDER: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** `Mon–Fri`, `Sat, Sun`, `Mon, Wed–Fri`: runs of three or more days become ranges. */
export function describeDays(days: readonly Weekday[]): string {
  const present = WEEK_ORDER.map((day) => days.includes(day));
  if (present.every(Boolean)) return 'every day';
  const parts: string[] = [];
  for (let i = 0; i < 7; i++) {
    if (!present[i]) continue;
    let j = i;
    while (j + 1 < 7 && present[j + 1]) j++;
    const first = DAY_LABELS[WEEK_ORDER[i] as Weekday];
    const last = DAY_LABELS[WEEK_ORDER[j] as Weekday];
    if (j - i >= 2) parts.push(`${first}–${last}`);
    else for (let k = i; k <= j; k++) parts.push(DAY_LABELS[WEEK_ORDER[k] as Weekday]);
    i = j;
  }
  return parts.join(', ');
}

/** `Mon–Fri 09:00–17:00; Sat 10:00–12:00 Europe/Berlin`. */
export function describeWindows(windows: readonly TimeWindow[], zone: string): string {
  return `${windows.map((w) => `${describeDays(w.days)} ${w.start}–${w.end}`).join('; ')} ${zone}`;
}

const nameFormatters = new Map<string, Intl.DateTimeFormat[]>();

/** The zone's abbreviation at an instant: en-GB names European zones (CET/CEST), en-US American ones (EST/EDT); else a GMT offset. */
function zoneName(instant: number, zone: string): string {
  let formatters = nameFormatters.get(zone);
  if (!formatters) {
    formatters = ['en-GB', 'en-US'].map(
      (locale) => new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' }),
    );
    nameFormatters.set(zone, formatters);
  }
  const date = new Date(instant);
  const found = formatters.map(
    (f) => f.formatToParts(date).find((p) => p.type === 'timeZoneName')?.value ?? '',
  );
  return found.find((name) => name !== '' && !name.startsWith('GMT')) ?? found[0] ?? zone;
}

/** `Mon 24 Nov 09:00 CET`, with the year when it is not the year of `relativeTo`. */
export function formatInstant(instant: number, zone: string, relativeTo?: number): string {
  const w = wallTime(instant, zone);
  const weekday = DAY_LABELS[WEEKDAYS[w.weekday] as Weekday];
  const month = MONTHS[w.month - 1] ?? '';
  const sameYear = relativeTo === undefined || wallTime(relativeTo, zone).year === w.year;
  const year = sameYear ? '' : ` ${w.year}`;
  return `${weekday} ${w.day} ${month}${year} ${pad(w.hour)}:${pad(w.minute)} ${zoneName(instant, zone)}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
