/**
 * Config names are folded before the sweeper compares them (exposures, the last-seen index, one
 * ask per name) and before a `protect` glob is matched. Lower case alone left apart forms that a
 * full case fold joins (`Straße`/`STRASSE`, a final sigma, `ſ`) and the two Unicode spellings of
 * one accented letter: a config exposed daily under one of them looked unused under the other,
 * and a protection written with one did not hold for the other. The fold is coarser now, which
 * only ever keeps a config (more exposures counted, more protected), never archives one more.
 */
import { describe, expect, it } from 'vitest';
import { foldConfigName } from '../../src/util/config-name.js';
import { protectingGlobOf } from '../../src/util/glob.js';

describe('foldConfigName', () => {
  it.each([
    ['New_Checkout_Copy', 'new_checkout_copy'],
    ['Straße_Banner', 'STRASSE_BANNER'],
    ['ΟΔΟΣ_promo', 'οδοσ_promo'], // a capital sigma at a word's end lower-cases to ς
    ['ſale_banner', 'SALE_BANNER'], // long s
    ['Café_menu', 'Cafe\u0301_menu'], // é precomposed and as e + combining acute
    ['ＰＲＯＭＯ', 'promo'], // full-width letters
    ['\u212Aelvin', 'kelvin'], // the Kelvin sign
  ])('%s and %s are one name', (a, b) => {
    expect(foldConfigName(a)).toBe(foldConfigName(b));
  });

  it.each([
    ['promo_a', 'promo_b'],
    ['café', 'cafe'],
    ['checkout', 'check_out'],
  ])('%s and %s stay two names', (a, b) => {
    expect(foldConfigName(a)).not.toBe(foldConfigName(b));
  });

  it('folds a client-written name with a lone surrogate without throwing (the sweeper reads every logged name)', () => {
    expect(foldConfigName('Promo\uD800_A')).toBe('promo\uD800_a');
  });

  it('folds an ASCII name to its lower case, as before (the keys runs already compared)', () => {
    expect(foldConfigName('Checkout_Flow-2')).toBe('checkout_flow-2');
  });
});

describe('protectingGlobOf under the fold', () => {
  it('protects every form of a protected name', () => {
    expect(protectingGlobOf(['straße_*'], 'STRASSE_Banner')).toBe('straße_*');
    expect(protectingGlobOf(['STRASSE_*'], 'straße_banner')).toBe('STRASSE_*');
    expect(protectingGlobOf(['café_*'], 'Cafe\u0301_menu')).toBe('café_*');
    expect(protectingGlobOf(['checkout_*'], 'Checkout_Flow')).toBe('checkout_*');
    expect(protectingGlobOf(['checkout_*'], 'promo_checkout')).toBeUndefined();
  });
});
