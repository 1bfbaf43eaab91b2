/**
 * A freeze's `start`/`end` needs seconds and an offset, while `policy explain --at` and the test
 * cases' `at` take minutes alone. A freeze written the way those take it (2026-12-20T00:00+01:00)
 * was refused with zod's bare "Invalid ISO datetime", which does not say what is missing.
 */
import { describe, expect, it } from 'vitest';
import { PolicyError } from '../../src/policy/errors.js';
import { parsePolicy } from '../../src/policy/parse.js';

const withFreeze = (start: string, end = '2027-01-04T00:00:00Z') => ({
  version: 1,
  approvals: { freezes: [{ name: 'year end', start, end }] },
});

describe('a freeze instant the loader refuses', () => {
  it.each([
    ['minutes only', '2026-12-20T00:00+01:00'],
    ['no offset', '2026-12-20T00:00:00'],
  ])('says what the instant needs (%s), with its path', (_what, start) => {
    expect(() => parsePolicy(withFreeze(start))).toThrow(PolicyError);
    expect(() => parsePolicy(withFreeze(start))).toThrow(
      /approvals\.freezes\[0\]\.start: expected an ISO 8601 instant with seconds and an offset, e\.g\. 2026-12-20T00:00:00\+01:00/,
    );
  });

  it('still accepts an instant with seconds and an offset', () => {
    expect(parsePolicy(withFreeze('2026-12-20T00:00:00+01:00')).approvals.freezes).toHaveLength(1);
  });
});
