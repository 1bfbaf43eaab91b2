/**
 * One archive per config, whatever the case of the names it is watched under. With `discover` on,
 * each form of a name the SDKs log is watched on its own (`Promo_Banner` from one app,
 * `promo_banner` from another), and the platform evaluates names whatever their case: one config,
 * which, once unused, was judged stale under each form and asked to be archived twice (two posts,
 * two units of `maxPerDay` and of `maxPerRun`). Its forms share their newest exposure already
 * (src/sweeper/flush-plan.ts foldForms, src/sweeper/fold-index.ts), so they are stale together.
 *
 * The sweeper cannot ask the platform which form it knows (there is no endpoint that lists
 * configs), so it asks for one form, the same run after run: the one an ask of the current episode
 * was made for; else one listed in `configs` (a release manager typed it); else the one watched
 * first; else the first in code-unit order. The others are skipped as the same config.
 */
import type { WatchEntry } from '../state/watch.js';
import { foldConfigName } from '../util/config-name.js';
import type { StaleConfig, StaleInput, StalePlan } from './stale.js';

/** `earlierAttempt` of src/sweeper/stale.ts: the attempt of an ask made in the current episode. */
type EarlierAttempt = (entry: WatchEntry, lastSeen: number | null, indexed?: boolean) => number | undefined;

/**
 * `configs` with one form per case-folded name, in their order; each other form is added to the
 * plan's skipped ones as `same config`, naming the form asked for.
 */
export function oneFormPerName(
  configs: readonly StaleConfig[],
  input: StaleInput,
  plan: StalePlan,
  earlierAttempt: EarlierAttempt,
): StaleConfig[] {
  const rank = (config: StaleConfig) => {
    const entry = input.watch.get(config.configId) as WatchEntry;
    const asked = earlierAttempt(entry, config.lastSeen, input.lastSeen.has(config.configId)) !== undefined;
    return [asked ? 0 : 1, input.policy.configs.includes(config.configId) ? 0 : 1, entry.watchedSince];
  };
  const chosen = new Map<string, StaleConfig>();
  for (const config of configs) {
    const name = foldConfigName(config.configId);
    const held = chosen.get(name);
    if (!held || before(rank(config), config.configId, rank(held), held.configId)) chosen.set(name, config);
  }
  return configs.filter((config) => {
    const form = chosen.get(foldConfigName(config.configId)) as StaleConfig;
    if (form === config) return true;
    plan.skipped.push({
      configId: config.configId,
      reason: 'same config',
      detail: `another case of ${form.configId} (the platform evaluates names whatever their case): asked for once`,
    });
    return false;
  });
}

function before(a: number[], aId: string, b: number[], bId: string): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number);
  return aId < bId;
}
