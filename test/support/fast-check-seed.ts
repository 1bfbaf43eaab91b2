/**
 * One fixed fast-check seed for every property in the suite (a vitest setup file), so a run
 * decides the same way every time: an unseeded property draws new cases on each run, and a rare
 * draw fails one CI run in many (e5fae6c was one). A property that names its own seed keeps it.
 * `FC_SEED=<integer>` runs the suite on another seed; `FC_SEED=random` lets fast-check draw one
 * (it prints the seed of a failure, to pin it here or in the test).
 */
import fc from 'fast-check';

const DEFAULT_SEED = 20_261_123;

const chosen = process.env.FC_SEED;
if (chosen !== 'random') {
  const seed = chosen === undefined || chosen === '' ? DEFAULT_SEED : Number(chosen);
  if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", got "${chosen}"`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
}
