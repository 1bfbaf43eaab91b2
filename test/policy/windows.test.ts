import { describe, expect, it } from 'vitest';
import type { TimeWindow } from '../../src/policy/schema.js';
import { describeDays, describeWindows, formatInstant } from '../../src/policy/time-words.js';
import {
  instantsOfWallTime,
  isWithinWindows,
  nextWindowOpening,
  wallDay,
  wallTime,
} from '../../src/policy/windows.js';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';
const at = (iso: string) => Date.parse(iso);
const iso = (instant: number | undefined) =>
  instant === undefined ? undefined : new Date(instant).toISOString();

const officeHours: TimeWindow[] = [
  { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' },
];
const allSunday = (start: string, end: string): TimeWindow[] => [{ days: ['sun'], start, end }];

describe('wallTime', () => {
  it('reads the clock in the zone, with the weekday', () => {
    expect(wallTime(at('2026-11-23T08:30:15Z'), BERLIN)).toEqual({
      year: 2026,
      month: 11,
      day: 23,
      hour: 9,
      minute: 30,
      second: 15,
      weekday: 1,
    });
  });

  it('shows midnight as 00, never 24', () => {
    expect(wallTime(at('2026-11-22T23:00:00Z'), BERLIN).hour).toBe(0);
  });
});

describe('isWithinWindows', () => {
  it.each([
    ['a weekday inside office hours', '2026-11-23T08:00:00Z', true],
    ['one second before the start', '2026-11-23T07:59:59Z', false],
    ['the last second before the end', '2026-11-23T15:59:59Z', true],
    ['the end itself (end is exclusive)', '2026-11-23T16:00:00Z', false],
    ['a Saturday at noon', '2026-11-28T11:00:00Z', false],
    ['summer time: 09:00 CEST is 07:00 UTC', '2026-07-06T07:00:00Z', true],
    ['summer time: 08:30 UTC is 10:30 CEST', '2026-07-06T08:30:00Z', true],
    ['summer time: 15:30 UTC is 17:30 CEST', '2026-07-06T15:30:00Z', false],
  ])('office hours in Berlin: %s → %s', (_name, instant, expected) => {
    expect(isWithinWindows(officeHours, at(instant), BERLIN)).toBe(expected);
  });

  const night: TimeWindow[] = [{ days: ['fri'], start: '22:00', end: '06:00' }];
  it.each([
    ['Friday 21:59', '2026-11-27T20:59:00Z', false],
    ['Friday 22:00', '2026-11-27T21:00:00Z', true],
    ['Saturday 05:59', '2026-11-28T04:59:00Z', true],
    ['Saturday 06:00', '2026-11-28T05:00:00Z', false],
    ['Saturday 22:30 (the window starts on Fridays only)', '2026-11-28T21:30:00Z', false],
    ['Friday 03:00 (the morning after Thursday, not listed)', '2026-11-27T02:00:00Z', false],
  ])('a window crossing midnight (Fri 22:00–06:00): %s → %s', (_name, instant, expected) => {
    expect(isWithinWindows(night, at(instant), BERLIN)).toBe(expected);
  });

  it('treats 24:00 as the end of the day', () => {
    const evening: TimeWindow[] = [{ days: ['mon'], start: '18:00', end: '24:00' }];
    expect(isWithinWindows(evening, at('2026-11-23T22:59:59Z'), BERLIN)).toBe(true);
    expect(isWithinWindows(evening, at('2026-11-23T23:00:00Z'), BERLIN)).toBe(false);
  });

  it('counts a repeated fall-back hour as inside both times (Berlin, 25 Oct 2026)', () => {
    const window = allSunday('02:00', '02:30');
    expect(isWithinWindows(window, at('2026-10-25T00:15:00Z'), BERLIN)).toBe(true); // 02:15 CEST
    expect(isWithinWindows(window, at('2026-10-25T00:45:00Z'), BERLIN)).toBe(false); // 02:45 CEST
    expect(isWithinWindows(window, at('2026-10-25T01:15:00Z'), BERLIN)).toBe(true); // 02:15 CET
  });

  it('is open after a spring-forward jump into the window (Berlin, 29 Mar 2026)', () => {
    const window = allSunday('02:30', '04:00');
    expect(isWithinWindows(window, at('2026-03-29T00:59:59Z'), BERLIN)).toBe(false); // 01:59:59 CET
    expect(isWithinWindows(window, at('2026-03-29T01:00:00Z'), BERLIN)).toBe(true); // 03:00 CEST
  });
});

describe('nextWindowOpening', () => {
  it.each([
    ['Sunday night → Monday 09:00 CET', officeHours, '2026-11-22T22:00:00Z', '2026-11-23T08:00:00.000Z'],
    ['Friday after hours → Monday', officeHours, '2026-11-27T17:00:00Z', '2026-11-30T08:00:00.000Z'],
    [
      'Monday before hours → the same morning',
      officeHours,
      '2026-11-23T06:00:00Z',
      '2026-11-23T08:00:00.000Z',
    ],
    [
      'over the spring-forward weekend → Monday 09:00 CEST',
      officeHours,
      '2026-03-28T12:00:00Z',
      '2026-03-30T07:00:00.000Z',
    ],
    [
      'over the fall-back weekend → Monday 09:00 CET',
      officeHours,
      '2026-10-24T12:00:00Z',
      '2026-10-26T08:00:00.000Z',
    ],
    [
      'a start in the spring-forward gap opens at the jump (02:30 does not exist)',
      allSunday('02:30', '04:00'),
      '2026-03-28T23:00:00Z',
      '2026-03-29T01:00:00.000Z',
    ],
    [
      'a start in the fall-back repeat opens at its first occurrence',
      allSunday('02:15', '02:45'),
      '2026-10-24T23:00:00Z',
      '2026-10-25T00:15:00.000Z',
    ],
    [
      'after the first occurrence, the repeat opens again (02:15 CET)',
      allSunday('02:15', '02:45'),
      '2026-10-25T00:50:00Z',
      '2026-10-25T01:15:00.000Z',
    ],
    [
      'a fall-back moving the clock back into a window reopens it at the jump',
      allSunday('01:00', '02:30'),
      '2026-10-25T00:40:00Z', // 02:40 CEST, outside; at 01:00Z the clock shows 02:00 CET, inside
      '2026-10-25T01:00:00.000Z',
    ],
    [
      'a midnight-crossing window opens at its evening start',
      [{ days: ['fri'], start: '22:00', end: '06:00' }] as TimeWindow[],
      '2026-11-28T06:00:00Z',
      '2026-12-04T21:00:00.000Z',
    ],
  ])('Berlin: %s', (_name, windows, from, expected) => {
    expect(iso(nextWindowOpening(windows, at(from), BERLIN))).toBe(expected);
  });

  it.each([
    [
      'New York spring forward (14 Mar 2027): Monday 09:00 EDT',
      officeHours,
      '2027-03-13T12:00:00Z',
      '2027-03-15T13:00:00.000Z',
    ],
    [
      'New York fall back (1 Nov 2026): Monday 09:00 EST',
      officeHours,
      '2026-10-31T12:00:00Z',
      '2026-11-02T14:00:00.000Z',
    ],
    [
      'New York: a 02:30 start on the spring-forward Sunday opens at 03:00 EDT',
      allSunday('02:30', '05:00'),
      '2027-03-14T05:00:00Z',
      '2027-03-14T07:00:00.000Z',
    ],
    [
      'New York: 01:30 on the fall-back Sunday first opens in EDT',
      allSunday('01:30', '01:45'),
      '2026-11-01T04:00:00Z',
      '2026-11-01T05:30:00.000Z',
    ],
  ])('%s', (_name, windows, from, expected) => {
    expect(iso(nextWindowOpening(windows, at(from), NEW_YORK))).toBe(expected);
  });

  it('is always strictly later and inside a window', () => {
    const windows: TimeWindow[] = [
      { days: ['tue', 'sat'], start: '23:30', end: '00:15' },
      { days: ['wed'], start: '12:00', end: '24:00' },
    ];
    for (let hour = 0; hour < 24 * 14; hour += 5) {
      const from = at('2026-10-20T00:00:00Z') + hour * 3_600_000;
      const next = nextWindowOpening(windows, from, BERLIN);
      expect(next).toBeGreaterThan(from);
      expect(isWithinWindows(windows, next ?? 0, BERLIN)).toBe(true);
      expect(isWithinWindows(windows, (next ?? 0) - 1000, BERLIN)).toBe(false);
    }
  });
});

describe('instantsOfWallTime', () => {
  it('finds both occurrences of a repeated wall time', () => {
    const instants = instantsOfWallTime({ year: 2026, month: 10, day: 25 }, 150, BERLIN).map(iso);
    expect(instants).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z']);
  });

  it('resolves a skipped wall time to the jump, when the clock first shows a later time', () => {
    const instants = instantsOfWallTime({ year: 2026, month: 3, day: 29 }, 150, BERLIN).map(iso);
    expect(instants).toEqual(['2026-03-29T01:00:00.000Z']);
  });

  it('starts a day without a midnight at the jump (Santiago, 6 Sep 2026: 24:00 → 01:00)', () => {
    const day = wallDay(at('2026-09-06T12:00:00Z'), 'America/Santiago');
    expect(iso(day.start)).toBe('2026-09-06T04:00:00.000Z');
    expect(wallTime(day.start, 'America/Santiago').hour).toBe(1);
  });
});

describe('wallDay', () => {
  it('bounds an ordinary day at local midnights', () => {
    expect(wallDay(at('2026-11-23T12:00:00Z'), BERLIN)).toEqual({
      date: '2026-11-23',
      start: at('2026-11-22T23:00:00Z'),
      end: at('2026-11-23T23:00:00Z'),
    });
  });

  it('makes the spring-forward day 23 hours long and the fall-back day 25', () => {
    const spring = wallDay(at('2026-03-29T12:00:00Z'), BERLIN);
    const autumn = wallDay(at('2026-10-25T12:00:00Z'), BERLIN);
    expect((spring.end - spring.start) / 3_600_000).toBe(23);
    expect((autumn.end - autumn.start) / 3_600_000).toBe(25);
  });
});

describe('words', () => {
  it.each([
    [['mon', 'tue', 'wed', 'thu', 'fri'], 'Mon–Fri'],
    [['sat', 'sun'], 'Sat, Sun'],
    [['mon', 'wed', 'thu', 'fri'], 'Mon, Wed–Fri'],
    [['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'], 'every day'],
  ] as const)('describes %j as %s', (days, expected) => {
    expect(describeDays(days)).toBe(expected);
  });

  it('describes windows with their zone', () => {
    expect(describeWindows(officeHours, BERLIN)).toBe('Mon–Fri 09:00–17:00 Europe/Berlin');
  });

  it('formats instants in the zone with its abbreviation', () => {
    expect(formatInstant(at('2026-11-23T08:00:00Z'), BERLIN)).toBe('Mon 23 Nov 09:00 CET');
    expect(formatInstant(at('2026-07-06T07:00:00Z'), BERLIN)).toBe('Mon 6 Jul 09:00 CEST');
    expect(formatInstant(at('2026-11-23T14:00:00Z'), NEW_YORK)).toBe('Mon 23 Nov 09:00 EST');
    expect(formatInstant(at('2027-01-04T00:00:00Z'), BERLIN, at('2026-12-20T00:00:00Z'))).toBe(
      'Mon 4 Jan 2027 01:00 CET',
    );
  });
});
