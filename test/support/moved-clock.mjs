/**
 * A preload that moves the process clock, to prove the test suite does not depend on the
 * machine's date: `AUTOPILOT_TEST_NOW=2026-11-30T00:30:00Z node --import ./test/support/moved-clock.mjs …`.
 * `new Date()`, `Date()` and `Date.now()` start at that instant and keep ticking in real time;
 * everything else about `Date` is untouched (timers, `performance.now()` and the OS are not moved).
 * `npm run test:anyday` runs the whole suite under several such clocks.
 */
const target = process.env.AUTOPILOT_TEST_NOW;
if (target) {
  const start = Date.parse(target);
  if (Number.isNaN(start)) throw new Error(`AUTOPILOT_TEST_NOW is not a date: ${target}`);
  const RealDate = Date;
  const offset = start - RealDate.now();
  const now = () => RealDate.now() + offset;
  globalThis.Date = new Proxy(RealDate, {
    construct: (real, args, newTarget) => Reflect.construct(real, args.length ? args : [now()], newTarget),
    apply: () => new RealDate(now()).toString(),
    get: (real, key, receiver) => (key === 'now' ? now : Reflect.get(real, key, receiver)),
  });
}
