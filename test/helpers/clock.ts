/**
 * A test's clock: it reads the instant the test set (never the machine's date) and moves on with
 * real elapsed time from there, so the worker's deadlines, effect locks and the Console client's
 * budget, which wait for time to pass, still see it pass.
 */
export function runningFrom(instant: () => number): () => number {
  let base = Number.NaN;
  let setAt = 0;
  return () => {
    const at = instant();
    // A new instant set by the test starts a new run from there.
    if (at !== base) {
      base = at;
      setAt = Date.now();
    }
    return base + (Date.now() - setAt);
  };
}
