/**
 * `npm run test:anyday [-- name…]`: runs the whole test suite (vitest) with the process clock
 * moved (see moved-clock.mjs) to instants that have broken date-dependent suites before, each
 * in a different time zone. Without names it runs all of them, one after another; it exits
 * non-zero when any run fails.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLOCKS = {
  // A Monday just after midnight UTC: "this week" and "the coming Monday" disagree.
  monday: { now: '2026-11-30T00:30:00Z', tz: 'UTC' },
  // A Thursday afternoon in Berlin summer time (UTC+2), inside office-hours windows.
  thursday: { now: '2027-07-15T14:40:00Z', tz: 'Europe/Berlin' },
  // The Sunday Europe moves its clocks (01:00 UTC): a minute before the hour that does not exist in Berlin.
  dst: { now: '2027-03-28T01:59:00Z', tz: 'Europe/Berlin' },
  // New Year's Eve, 30 s before midnight UTC, where the local date is already the next year.
  newyear: { now: '2026-12-31T23:59:30Z', tz: 'Pacific/Kiritimati' },
};

const preload = fileURLToPath(new URL('./moved-clock.mjs', import.meta.url));
const names = process.argv.slice(2);
const unknown = names.filter((name) => !(name in CLOCKS));
if (unknown.length > 0) {
  console.error(
    `test:anyday: unknown clock ${unknown.join(', ')}; choose from ${Object.keys(CLOCKS).join(', ')}`,
  );
  process.exit(2);
}

const failed = [];
for (const name of names.length > 0 ? names : Object.keys(CLOCKS)) {
  const { now, tz } = CLOCKS[name];
  console.log(`\n=== test:anyday ${name}: clock ${now}, TZ=${tz} ===`);
  const run = spawnSync('npx', ['vitest', 'run'], {
    stdio: 'inherit',
    env: {
      ...process.env,
      AUTOPILOT_TEST_NOW: now,
      TZ: tz,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${preload}`.trim(),
    },
  });
  if (run.status !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`test:anyday: failed under ${failed.join(', ')}`);
  process.exit(1);
}
console.log('test:anyday: every clock passed');
