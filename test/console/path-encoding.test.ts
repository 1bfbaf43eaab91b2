/**
 * A path segment is what encodeURIComponent makes of it, whatever the text: ids made only of
 * letters, digits, `-`, `.`, `_`, `~` are taken as they are (no call into the runtime), and
 * that shortcut must never differ from encoding (src/console/path.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeSegment, path } from '../../src/console/index.js';

const ascii = fc.string({
  unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)),
  minLength: 1,
});

describe('path segments', () => {
  it('are encodeURIComponent of the text, for every ASCII character and any Unicode text', () => {
    for (let c = 0; c < 128; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      expect(encodeSegment(text)).toBe(encodeURIComponent(text));
    }
    fc.assert(
      fc.property(fc.oneof(ascii, fc.string({ unit: 'grapheme', minLength: 1 })), (text) => {
        fc.pre(text !== '.' && text !== '..');
        expect(encodeSegment(text)).toBe(encodeURIComponent(text));
        expect(path`/console/v1/segments/${text}`).toBe(`/console/v1/segments/${encodeURIComponent(text)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('still refuses what cannot be one segment', () => {
    for (const text of ['', '.', '..', 'a\uD800', '\uDC00b'])
      expect(() => encodeSegment(text)).toThrow(TypeError);
    expect(encodeSegment('beta_testers')).toBe('beta_testers');
    expect(encodeSegment('a/b?c')).toBe('a%2Fb%3Fc');
  });
});
