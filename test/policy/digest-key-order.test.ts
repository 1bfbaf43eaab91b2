/**
 * docs/policy.md: the policy digest is "the same for the file however it is laid out", so that
 * `policy replay` and `/autopilot why` tell records of the deployed policy from another's. The
 * digest hashes the normalized text, whose record maps (`chat.grants`, an event rule's `match`)
 * kept the file's key order: the same grants written in another order were "another policy".
 * The maps are written in sorted key order (normalizedPolicyText).
 */
import { describe, expect, it } from 'vitest';
import { policyDigest } from '../../src/policy/digest.js';
import { parsePolicy } from '../../src/policy/parse.js';

describe('the policy digest', () => {
  it('does not depend on the order grants are written in', () => {
    const grants = { U0ADMIN: ['approve_phase'], U0OPS: ['pause'] };
    const reordered = { U0OPS: ['pause'], U0ADMIN: ['approve_phase'] };
    expect(policyDigest(parsePolicy({ version: 1, chat: { grants: reordered } }))).toBe(
      policyDigest(parsePolicy({ version: 1, chat: { grants } })),
    );
  });

  it('does not depend on the order of an event rule match', () => {
    const rule = (match: Record<string, string>) =>
      parsePolicy({ version: 1, sweeper: { eventRules: [{ name: 'r', match, notify: true }] } });
    expect(policyDigest(rule({ source: 'ci', name: 'x' }))).toBe(
      policyDigest(rule({ name: 'x', source: 'ci' })),
    );
  });
});
