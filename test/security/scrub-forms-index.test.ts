/**
 * The scrubber indexes the forms of the secrets it knows once per change (src/util/secret-scrub.ts:
 * every form in order, and the shortest form's length, under which a text is passed over). A secret
 * told after texts were scrubbed, shorter than any known before, must be scrubbed from then on in
 * every form, even from texts shorter than every earlier form; and the earlier secrets still are.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { rememberSecret, scrubDeep, scrubSecrets } from '../../src/util/secret-scrub.js';

const LONG = 'ck_live_0123456789abcdef0123456789abcdef';
const SHORT = 'k9!x&Z2q';

describe('a secret told later, shorter than every form known before', () => {
  it('is scrubbed from then on, in every form, from short texts and log lines', () => {
    rememberSecret(LONG);
    expect(scrubSecrets(`key ${LONG}`)).toBe('key [redacted]');
    // Shorter than every form of LONG: passed over while LONG is all the scrubber knows.
    expect(scrubSecrets(`a ${SHORT} b`)).toBe(`a ${SHORT} b`);
    const lines: string[] = [];
    const logger = createLogger({ service: 'test', sink: (line) => lines.push(line) });

    rememberSecret(SHORT);
    expect(scrubSecrets(SHORT)).toBe('[redacted]');
    expect(scrubSecrets(`a ${SHORT} b`)).toBe('a [redacted] b');
    expect(scrubSecrets(encodeURIComponent(SHORT))).toBe('[redacted]');
    expect(scrubSecrets(Buffer.from(SHORT).toString('base64'))).not.toContain(
      Buffer.from(SHORT).toString('base64').slice(0, 8),
    );
    expect(scrubSecrets(`x${SHORT.slice(0, 3)}%${SHORT.charCodeAt(3).toString(16)}${SHORT.slice(4)}`)).toBe(
      'x[redacted]',
    );
    expect(scrubDeep({ [SHORT]: [SHORT] })).toEqual({ '[redacted]': ['[redacted]'] });
    logger.info('request', { reason: SHORT, key: `${LONG}` });
    expect(lines.join('\n')).not.toContain(SHORT);
    expect(lines.join('\n')).not.toContain(LONG);
    // The one told first still is.
    expect(scrubSecrets(`key ${LONG}`)).toBe('key [redacted]');
  });
});

describe('the forms index', () => {
  it('matches secrets made of regular-expression characters literally, in every form', () => {
    // Unbalanced brackets too: unescaped, they would not even make a pattern.
    const META = 'a.b*c+d?(e)[f]{g}|h^$\\/-((]';
    rememberSecret(META);
    expect(scrubSecrets(`x ${META} y`)).toBe('x [redacted] y');
    expect(scrubSecrets(`x ${encodeURIComponent(META)} y`)).toBe('x [redacted] y');
    const escaped = [...META].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    expect(scrubSecrets(`x ${escaped} y`)).toBe('x [redacted] y');
    expect(scrubSecrets(Buffer.from(META).toString('base64'))).toBe('[redacted]');
    // Its characters are not a pattern: text they would match as one is left alone.
    expect(scrubSecrets('a-b-c-d-e-f-g-h-i-j-k-l-m')).toBe('a-b-c-d-e-f-g-h-i-j-k-l-m');
  });

  it('keeps scrubbing every secret while they are told again in any order and new ones push old ones out', () => {
    const keys = Array.from({ length: 20 }, (_, i) => `rotating-key-${i}-${'z'.repeat(i)}`);
    for (const key of keys) {
      rememberSecret(key);
      // Told again between others, as the Console client tells its key before every call.
      rememberSecret(keys[0]);
      for (const known of [keys[0], key]) expect(scrubSecrets(`<${known}>`)).toBe('<[redacted]>');
    }
    expect(scrubSecrets(`${keys[19]} ${keys[0]}`)).toBe('[redacted] [redacted]');
  });
});
