/**
 * Config names as the platform evaluates them: whatever their case (`New_Checkout_Copy` and
 * `new_checkout_copy` are one config), folded by src/util/config-name.ts. One rule for the flush
 * (src/sweeper/flush-plan.ts foldForms), the last-seen index (src/sweeper/fold-index.ts) and the
 * one ask per name (src/sweeper/stale-forms.ts). Pure.
 */
import { foldConfigName } from '../util/config-name.js';

/** The newest exposure (epoch ms) of each folded name among `exposures` (config id → time). */
export function newestPerName(exposures: Iterable<[string, number]>): Map<string, number> {
  const newest = new Map<string, number>();
  for (const [id, at] of exposures) {
    const name = foldConfigName(id);
    newest.set(name, Math.max(newest.get(name) ?? at, at));
  }
  return newest;
}
