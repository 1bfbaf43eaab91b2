import { describe, expect, it } from 'vitest';
import { globMatch, matchesAny } from '../../src/util/glob.js';

describe('globMatch', () => {
  it.each([
    ['*', 'anything', true],
    ['ci:*', 'ci:github-actions/deploy.yml', true],
    ['ci:*', 'slack:U1', false],
    ['checkout_*', 'checkout_banner', true],
    ['checkout_*', 'new_checkout_copy', false],
    ['a.b', 'axb', false],
    ['*_copy', 'new_checkout_copy', true],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
    ['a*b*c', 'a-b-c', true],
  ])('%s against %s is %s', (pattern, value, expected) => {
    expect(globMatch(pattern, value)).toBe(expected);
  });

  it('matches when any pattern of a list matches', () => {
    expect(matchesAny(['slack:U1', 'ci:*'], 'ci:x')).toBe(true);
    expect(matchesAny([], 'ci:x')).toBe(false);
  });
});
