/**
 * A freeze neither stops a cancel from a terminal nor widens who may cancel: during the year-end
 * freeze every check used to come back "freeze:" and every cli: user passed.
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '../../src/actions/request.js';
import { mayCancel } from '../../src/policy/cancel-grant.js';
import { testPolicy } from './fixtures.js';

// A held archive asked by the sweeper. The test policy lets only schedule:* and slack:U0ADMIN
// archive configs, so ci:cli:mallory may not ask for it, and may not cancel it.
const held = {
  version: 1,
  action: 'archive_config',
  configId: 'old_banner',
  reason: 'stale',
  requestedBy: { source: 'schedule', id: 'stale-configs' },
  requestedAt: '2026-12-21T08:00:00.000Z',
  requestId: 'held-1',
} as ActionRequest;

describe('mayCancel from a terminal during a freeze', () => {
  it('refuses a cli user the policy never lets ask for the action, outside a freeze', () => {
    expect(mayCancel(testPolicy, 'cli:mallory', held, new Date('2026-12-10T10:00:00Z'))).not.toBe(true);
  });

  it('still refuses that user while the year-end freeze is in force (a freeze must not widen who may cancel)', () => {
    // 2026-12-21 is inside the fixture's freeze "year-end" (2026-12-20 – 2027-01-04).
    expect(mayCancel(testPolicy, 'cli:mallory', held, new Date('2026-12-21T10:00:00Z'))).not.toBe(true);
  });
});
