/**
 * Review (policy check): a template placeholder that names no event field (`{meta.triggerID}`, a
 * misspelt top-level field, or `{metadata}` itself, an object) passed the schema and the check,
 * and then every event the rule matched was skipped at run time ("missing field"). `policy
 * check` now warns `template-unknown-field` for it, anywhere in the template.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';

function ruleWith(enqueue: Record<string, unknown>) {
  return parsePolicy({
    version: 1,
    approvals: {
      rules: [
        {
          name: 'approve from events',
          decision: 'approve',
          maxPerHour: 5,
          when: { requesters: ['events:r'], triggers: ['trg_1'], phases: ['ph_1'] },
        },
      ],
    },
    sweeper: {
      eventRules: [
        {
          name: 'r',
          match: { name: 'release_checks_passed', 'metadata.triggerID': 'trg_1', 'metadata.phaseID': 'ph_1' },
          enqueue,
        },
      ],
    },
  });
}

const unknown = (enqueue: Record<string, unknown>) =>
  policyWarnings(ruleWith(enqueue)).filter((w) => w.code === 'template-unknown-field');

describe('policy check on a template placeholder that names no event field', () => {
  it.each(['meta.triggerID', 'metadata', 'userId', 'metadata..x'])('warns about {%s}', (path) => {
    const warnings = unknown({
      action: 'approve_phase',
      triggerId: `{${path}}`,
      phaseId: '{metadata.phaseID}',
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.where).toBe('sweeper.eventRules "r"');
    expect(warnings[0]?.message).toContain(`{${path}}`);
  });

  it('warns about one outside the target fields too', () => {
    const warnings = unknown({
      action: 'approve_phase',
      triggerId: '{metadata.triggerID}',
      phaseId: '{metadata.phaseID}',
      reason: 'checks passed for {metadata}',
    });
    expect(warnings.map((w) => w.message)).toEqual([expect.stringContaining('{metadata}')]);
  });

  it.each(['name', 'value', 'source', 'userID', 'timestamp', 'metadata.release.phase'])(
    'does not warn about {%s}',
    (path) => {
      expect(
        unknown({
          action: 'approve_phase',
          triggerId: '{metadata.triggerID}',
          phaseId: '{metadata.phaseID}',
          reason: `from {${path}}`,
        }),
      ).toEqual([]);
    },
  );

  it('leaves the shipped policy without warnings', () => {
    const shipped = parsePolicy(JSON.parse(readFileSync('policy.json', 'utf8')));
    expect(policyWarnings(shipped)).toEqual([]);
  });
});
