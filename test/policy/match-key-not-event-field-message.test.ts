/**
 * An event rule's `match` key that is no event field is an error (docs/policy.md: "any other key
 * is an error"), and an invalid file names each problem by path with what to write instead. A
 * misspelt key (`meta.phase` for `metadata.phase`, `user` for `userID`) was reported as
 * "Invalid key in record" alone: zod's words for the record, not the event-field message the
 * schema carries, so the author learnt neither what is wrong nor what the keys may be.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';

const withMatch = (match: Record<string, string>) => ({
  version: 1,
  sweeper: { eventRules: [{ name: 'canary', match, notify: true }] },
});

const problem = (value: unknown): string => {
  try {
    parsePolicy(value, 'policy.json');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the policy was accepted');
};

describe('a match key that is no event field', () => {
  it('is refused with its path and the event fields it may name', () => {
    const message = problem(withMatch({ name: 'release_checks_passed', 'meta.phase': 'canary' }));
    expect(message).toContain('sweeper.eventRules[0].match.meta.phase');
    expect(message).not.toContain('Invalid key in record');
    expect(message).toMatch(/name, source, userID, value, timestamp or metadata\.<key>/);
  });

  it('names the misspelt key itself', () => {
    expect(problem(withMatch({ user: 'ci-bot' }))).toContain('"user"');
  });
});
