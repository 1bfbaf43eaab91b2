/**
 * Review (policy check): a requester glob whose source part is none of `slack`, `ci`, `events`,
 * `schedule` (`"github-actions/*"` with no colon, `"CI:*"` in upper case) passed the schema and
 * the check, and then never matched a request: the rule was silently dead and its requests were
 * denied by default. `policy check` now warns `requester-never-matches`, naming the rule and glob.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';

function policyWith(requesters: string[]) {
  return parsePolicy({
    version: 1,
    approvals: {
      rules: [{ name: 'CI', decision: 'approve', maxPerHour: 5, when: { requesters } }],
    },
    actions: { archive_config: { requesters } },
  });
}

const neverMatching = (requesters: string[]) =>
  policyWarnings(policyWith(requesters)).filter((w) => w.code === 'requester-never-matches');

describe('policy check on a requester glob no request can match', () => {
  it.each(['github-actions/*', 'CI:*', 'Slack:U123', 'ci', 'cron:nightly', 'event:*'])(
    'warns about "%s" in an approval rule and an action section',
    (glob) => {
      const warnings = neverMatching(['slack:U1', glob]);
      expect(warnings.map((w) => w.where)).toEqual(['approvals.rules "CI"', 'actions.archive_config']);
      for (const warning of warnings) {
        expect(warning.message).toContain(`"${glob}"`);
        expect(warning.message).toContain('slack, ci, events, schedule');
      }
    },
  );

  it.each([
    '*',
    'ci:*',
    'ci:nightly',
    'slack:U*',
    'events:approve canary',
    'schedule:*',
    's*',
    '*:nightly',
    'c*:x',
  ])('does not warn about "%s"', (glob) => {
    expect(neverMatching([glob])).toEqual([]);
  });

  it('leaves the shipped policy without warnings', () => {
    const shipped = parsePolicy(JSON.parse(readFileSync('policy.json', 'utf8')));
    expect(policyWarnings(shipped)).toEqual([]);
  });
});
