/**
 * A long disable_groups list goes by its digest in the effect key, under a prefix of its own: a
 * single group named after that digest must not share the key (the veto, the effect claim).
 */
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { type ActionRequest, effectKey } from '../../src/actions/request.js';

const base = {
  version: 1,
  action: 'disable_groups',
  experimentId: 'exp_1',
  requestedBy: { source: 'slack', id: 'U0ADMIN' },
  requestedAt: '2026-11-23T10:00:00.000Z',
} as const;

it('gives different disable_groups requests different effect keys', () => {
  const long = Array.from({ length: 12 }, (_, i) => `g${i}_${'x'.repeat(190)}`);
  const digest = createHash('sha256')
    .update([...long].sort().join(','))
    .digest('hex');
  const a = { ...base, groupNames: long } as ActionRequest;
  const b = { ...base, groupNames: [`sha256:${digest}`] } as ActionRequest;
  expect(effectKey(b)).not.toBe(effectKey(a));
});
