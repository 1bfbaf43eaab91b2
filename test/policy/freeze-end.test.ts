/**
 * A freeze's denial says when to ask again. With freezes that overlap or follow each other
 * (a holiday freeze and a release-train freeze), "ask again after" the end of the first one
 * named a time at which a freeze is still in force: asked again then, it is denied again.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/parse.js';

const request = (requestedAt: string) =>
  ({
    version: 1,
    action: 'approve_phase',
    triggerId: 'trg_1',
    phaseId: 'ph_2',
    requestedBy: { source: 'ci', id: 'deploy.yml' },
    requestedAt,
  }) as const;

const policyWithFreezes = (freezes: Array<{ name: string; start: string; end: string }>) =>
  parsePolicy({
    version: 1,
    timezone: 'Europe/Berlin',
    approvals: { rules: [{ name: 'CI', when: { requesters: ['ci:*'] }, decision: 'approve' }], freezes },
  });

const decideAt = (freezes: Parameters<typeof policyWithFreezes>[0], now: string) =>
  decide(policyWithFreezes(freezes), { request: request(now), now: new Date(now), pause: { paused: false } });

describe('a freeze denial names when no freeze is in force any more', () => {
  it('names the end of a freeze that follows the one in force (adjoining)', () => {
    const decision = decideAt(
      [
        { name: 'holidays', start: '2026-12-20T00:00:00+01:00', end: '2027-01-04T00:00:00+01:00' },
        { name: 'release train', start: '2027-01-04T00:00:00+01:00', end: '2027-01-11T00:00:00+01:00' },
      ],
      '2026-12-21T09:00:00+01:00',
    );
    expect(decision.outcome).toBe('deny');
    expect(decision.rule).toBe('freeze:holidays');
    expect(decision.reason).toContain('ask again after Mon 11 Jan 2027 00:00 CET');
    expect(decision.reason).not.toContain('ask again after Mon 4 Jan');
  });

  it('names the end of a longer freeze that overlaps the first one listed', () => {
    const decision = decideAt(
      [
        { name: 'christmas', start: '2026-12-24T00:00:00+01:00', end: '2026-12-27T00:00:00+01:00' },
        { name: 'year end', start: '2026-12-20T00:00:00+01:00', end: '2027-01-04T00:00:00+01:00' },
      ],
      '2026-12-25T09:00:00+01:00',
    );
    expect(decision.outcome).toBe('deny');
    expect(decision.reason).toContain('ask again after Mon 4 Jan 2027 00:00 CET');
  });

  it('keeps the freeze own end when nothing follows it', () => {
    const decision = decideAt(
      [
        { name: 'holidays', start: '2026-12-20T00:00:00+01:00', end: '2027-01-04T00:00:00+01:00' },
        { name: 'later', start: '2027-01-05T00:00:00+01:00', end: '2027-01-11T00:00:00+01:00' },
      ],
      '2026-12-21T09:00:00+01:00',
    );
    expect(decision.reason).toContain('ask again after Mon 4 Jan 2027 00:00 CET');
  });
});
