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
