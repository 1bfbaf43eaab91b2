/**
 * Review (policy check): a template placeholder is looked up in the rule's `match` to see whether
 * it is constrained. Looked up as a plain property, `{constructor}` (or `{toString}`) found
 * Object.prototype's function and `policy check` crashed with "pattern.includes is not a
 * function" instead of warning that the target comes unconstrained from the event. (Naming no
 * event field, such a placeholder is now warned `template-unknown-field`; under `metadata.` it is a
 * field, looked up in `match` as an own key.)
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';

describe('policy check on a placeholder named like an Object.prototype member', () => {
  it.each([
    ['constructor', 'template-unknown-field'],
    ['toString', 'template-unknown-field'],
    ['hasOwnProperty', 'template-unknown-field'],
    ['metadata.constructor', 'template-unconstrained'],
  ])('warns about {%s} instead of crashing', (path, code) => {
    const policy = parsePolicy({
      version: 1,
      sweeper: {
        eventRules: [
          {
            name: 'r',
            match: { name: 'release_checks_passed' },
            enqueue: { action: 'approve_phase', triggerId: `{${path}}`, phaseId: 'ph_1' },
          },
        ],
      },
    });
    expect(policyWarnings(policy).map((w) => w.code)).toEqual([code]);
  });
});
