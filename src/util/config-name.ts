/**
 * Config names as the platform evaluates them: whatever their case (`New_Checkout_Copy` and
 * `new_checkout_copy` are one config). One rule for the sweeper (exposures, the last-seen index,
 * one ask per name: src/sweeper/name-case.ts) and for `protect` (src/util/glob.ts).
 *
 * Lower case alone is not a case fold: it leaves `Straße` and `STRASSE`, `ΟΔΟΣ` and `οδοσ`, `ſale`
 * and `sale` apart, and a name spelled with a precomposed `é` apart from the same name with `e` and
 * a combining accent (what an app types depends on its keyboard and framework). A config exposed
 * daily under one form then looked unused under the other and was archived. So a name with any
 * non-ASCII character is brought to one spelling (NFKC: composed accents, full-width letters as
 * plain ones), then through upper case (`ß` → `SS`, `ς` → `Σ`, `ſ` → `S`) to lower case.
 *
 * The fold may join names the platform keeps apart (full-width letters, a compatibility form):
 * then an exposure of one counts for both and a protection of one holds for both, which only ever
 * keeps a config that might have been archived, never archives one more. Nothing persisted is
 * keyed by a folded name (the index keeps names as written and folds them when read), so the rule
 * can change without a migration. ASCII names fold to their lower case, as they always did.
 */

/** Any code unit beyond ASCII; without one, lower case is the whole fold (the common case). */
const BEYOND_ASCII = /[\u0080-\uffff]/;

/** The name every form of the config name `name` shares. */
export function foldConfigName(name: string): string {
  if (!BEYOND_ASCII.test(name)) return name.toLowerCase();
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
