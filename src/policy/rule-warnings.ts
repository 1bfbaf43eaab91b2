/**
 * What `autopilot policy check` warns about approval rules that are legal but do not do what their
 * writer means: a rule an earlier rule always matches first (it never decides), and a window too
 * short for a request deferred to it to be looked at while it is open. Said only when provable from
 * the policy alone: a warning that is not true would teach people to ignore them. Pure.
 */
import { RELEASE_MARGIN_MS } from './action-rules.js';
import type { ApprovalRule, Policy } from './schema.js';
import type { PolicyWarning } from './warnings.js';

/**
 * True when every value `glob` matches is matched by `cover`, as far as a simple reading proves it:
 * `*`; the same glob; a `prefix*` whose prefix begins the glob's text before its first `*`; a
 * `*suffix` whose suffix ends the text after its last `*`. Any other pair: false (not known).
 */
export function globCovers(cover: string, glob: string): boolean {
  if (cover === '*' || cover === glob) return true;
  const stars = cover.split('*').length - 1;
  if (stars !== 1) return false;
  if (cover.endsWith('*')) {
    const star = glob.indexOf('*');
    return (star < 0 ? glob : glob.slice(0, star)).startsWith(cover.slice(0, -1));
  }
  if (cover.startsWith('*')) return glob.slice(glob.lastIndexOf('*') + 1).endsWith(cover.slice(1));
  return false;
}

const LISTS = ['requesters', 'triggers', 'phases'] as const;

/** For each of `later`'s lists, the covering globs of `earlier` in words; undefined unless every glob is covered. */
function coverWords(earlier: ApprovalRule, later: ApprovalRule): string[] | undefined {
  const words: string[] = [];
  for (const list of LISTS) {
    const pairs = later.when[list].map((glob) => [glob, earlier.when[list].find((c) => globCovers(c, glob))]);
    if (pairs.some(([, cover]) => cover === undefined)) return undefined;
    // Both "*" (a list left to its default) goes without saying.
    if (pairs.every(([glob, cover]) => glob === '*' && cover === '*')) continue;
    words.push(
      `${list} ${pairs.map(([glob, cover]) => (glob === cover ? `"${glob}"` : `"${glob}" within "${cover}"`)).join(', ')}`,
    );
  }
  return words;
}

const OUTCOME_WORDS: Record<ApprovalRule['decision'], string> = {
  approve: 'approves them',
  deny: 'denies them',
  ask: 'asks a person about them',
};

/**
 * First match wins on requesters, triggers and phases alone: an earlier rule whose lists cover a
 * later rule's takes all its requests. Its windows and maxPerHour do not pass one on (outside them
 * it defers or denies the request itself), so they do not lift the shadow.
 */
export function shadowedRuleWarnings(policy: Policy): PolicyWarning[] {
  const rules = policy.approvals.rules;
  return rules.flatMap((later, index) => {
    for (let i = 0; i < index; i++) {
      const earlier = rules[i] as ApprovalRule;
      const words = coverWords(earlier, later);
      if (words === undefined) continue;
      const has = [earlier.windows && 'windows', earlier.maxPerHour !== undefined && 'maxPerHour'].filter(
        Boolean,
      );
      const limits =
        has.length > 0
          ? ` (its ${has.join(' and ')} pass no request on: outside ${has.length > 1 ? 'them' : 'it'} it defers or denies the request itself)`
          : '';
      const matched = words.length > 0 ? `: ${words.join('; ')}` : ': every list is "*"';
      return [
        {
          code: 'rule-shadowed',
          where: `approvals.rules "${later.name}"`,
          message:
            `never decides: rule ${i + 1} "${earlier.name}" comes first and matches every request rule ${index + 1} matches${matched}. ` +
            `First match wins, so "${earlier.name}" ${OUTCOME_WORDS[earlier.decision]}${limits}; ` +
            `if "${later.name}" is the exception, move it above "${earlier.name}"`,
        },
      ];
    }
    return [];
  });
}

const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;
const WEEK_MINUTES = 7 * DAY_MINUTES;
const DAY_INDEX: Record<string, number> = { mon: 0, tue: 1, wed: 2, thu: 3, fri: 4, sat: 5, sun: 6 };

/**
 * The shortest opening worth declaring: a request deferred to a window is looked at up to
 * RELEASE_MARGIN_MS after it opens (the release tick each minute, then queue delivery behind the
 * batches before it), so an opening must outlast that delay, and again for one more look (a retry
 * after a throttled call, a second request behind the first). Twice the delay: 10 minutes.
 */
export const SHORTEST_WINDOW_MINUTES = (2 * RELEASE_MARGIN_MS) / MINUTE;

const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/**
 * The rule's openings over a week of wall-clock minutes (daylight-saving changes aside), windows
 * that overlap or adjoin taken together (Sunday's end meets Monday's start): each opening shorter
 * than SHORTEST_WINDOW_MINUTES, with the windows it is made of.
 */
function shortOpenings(
  windows: NonNullable<ApprovalRule['windows']>,
): { minutes: number; windows: number[] }[] {
  // Dense (not `new Array(n)`): indexOf skips the holes of a sparse array.
  const open: Array<Set<number> | undefined> = Array.from({ length: WEEK_MINUTES }, () => undefined);
  windows.forEach((window, index) => {
    const start = minutesOf(window.start);
    const end = window.end === '24:00' ? DAY_MINUTES : minutesOf(window.end);
    const length = end > start ? end - start : end + DAY_MINUTES - start; // an earlier end crosses midnight
    for (const day of window.days) {
      const from = (DAY_INDEX[day] as number) * DAY_MINUTES + start;
      for (let m = from; m < from + length; m++) {
        const slot = open[m % WEEK_MINUTES] ?? new Set<number>();
        slot.add(index);
        open[m % WEEK_MINUTES] = slot;
      }
    }
  });
  const closed = open.indexOf(undefined);
  if (closed < 0) return []; // open all week
  const found: { minutes: number; windows: number[] }[] = [];
  let run: { minutes: number; windows: Set<number> } | undefined;
  // From a closed minute round the week and back to it, so that a run across Sunday midnight is one.
  for (let step = 1; step <= WEEK_MINUTES; step++) {
    const slot = open[(closed + step) % WEEK_MINUTES];
    if (slot) {
      run ??= { minutes: 0, windows: new Set() };
      run.minutes++;
      for (const index of slot) run.windows.add(index);
    } else if (run) {
      if (run.minutes < SHORTEST_WINDOW_MINUTES)
        found.push({ minutes: run.minutes, windows: [...run.windows] });
      run = undefined;
    }
  }
  return found;
}

/**
 * A window that opens for only a few minutes: a request deferred to it may find it closed when it
 * is looked at, and be deferred to the next opening, each time, until maxDeferHours denies it.
 * One warning per rule and set of windows, with the shortest such opening.
 */
export function shortWindowWarnings(policy: Policy): PolicyWarning[] {
  return policy.approvals.rules.flatMap((rule) => {
    if (!rule.windows) return [];
    const shortest = new Map<string, number>();
    for (const opening of shortOpenings(rule.windows)) {
      const key = opening.windows.sort((a, b) => a - b).join(',');
      shortest.set(key, Math.min(shortest.get(key) ?? Number.POSITIVE_INFINITY, opening.minutes));
    }
    const windows = rule.windows;
    return [...shortest].map(([key, minutes]) => {
      const named = key
        .split(',')
        .map((i) => {
          const window = windows[Number(i)];
          return `windows[${i}] (${window?.days.join(',')} ${window?.start}–${window?.end})`;
        })
        .join(' with ');
      return {
        code: 'window-too-short',
        where: `approvals.rules "${rule.name}"`,
        message:
          `${named} is open only ${minutes} minute${minutes === 1 ? '' : 's'} at a time: a request deferred to it is looked at ` +
          `up to ${RELEASE_MARGIN_MS / MINUTE} minutes after it opens (the release tick runs every minute, then the queue delivers), ` +
          'so it may find it closed and wait for the next opening, again and again until approvals.maxDeferHours denies it; ' +
          `make it at least ${SHORTEST_WINDOW_MINUTES} minutes long`,
      };
    });
  });
}
