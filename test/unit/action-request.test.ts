import { describe, expect, it } from 'vitest';
import { parseActionRequest } from '../../src/actions/request.js';

const valid = {
  version: 1,
  action: 'approve_phase',
  triggerId: 'trg_1',
  phaseId: 'ph_2',
  requestedBy: { source: 'ci', id: 'github-actions/deploy.yml' },
  requestedAt: '2026-11-22T10:00:00Z',
};

describe('action request', () => {
  it('accepts the documented example', () => {
    const parsed = parseActionRequest(
      JSON.stringify({ ...valid, reason: 'smoke tests green', dryRun: false }),
    );
    expect(parsed).toMatchObject({ ok: true, request: { action: 'approve_phase', triggerId: 'trg_1' } });
  });

  it('names the path of a missing field', () => {
    const { phaseId: _omitted, ...rest } = valid;
    const parsed = parseActionRequest(JSON.stringify(rest));
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/^phaseId: /);
  });

  it('rejects a body that is not JSON with the parser message', () => {
    const parsed = parseActionRequest('{nope');
    expect(parsed).toMatchObject({ ok: false, error: expect.stringMatching(/^body is not JSON/) });
  });

  it('rejects an unknown action and an unknown requester source', () => {
    expect(parseActionRequest(JSON.stringify({ ...valid, action: 'delete_everything' })).ok).toBe(false);
    expect(parseActionRequest(JSON.stringify({ ...valid, requestedBy: { source: 'web', id: 'x' } })).ok).toBe(
      false,
    );
  });

  it('rejects identifiers with whitespace', () => {
    const parsed = parseActionRequest(JSON.stringify({ ...valid, triggerId: 'trg 1' }));
    expect(parsed).toMatchObject({ ok: false, error: expect.stringMatching(/^triggerId: /) });
  });

  it('refuses an unknown key, naming the known field it is a near miss of', () => {
    for (const [key, meant] of [
      ['dryrun', 'dryRun'],
      ['dry_run', 'dryRun'],
      ['DryRun', 'dryRun'],
      ['dry-run', 'dryRun'],
      ['request_id', 'requestId'],
      ['Reason', 'reason'],
    ] as const) {
      const parsed = parseActionRequest(JSON.stringify({ ...valid, [key]: 'x' }));
      expect(parsed).toEqual({
        ok: false,
        error: expect.stringContaining(`\`${key}\` (did you mean \`${meant}\`?)`),
      });
    }
    const other = parseActionRequest(JSON.stringify({ ...valid, priority: 'high' }));
    expect(other).toEqual({
      ok: false,
      error: expect.stringMatching(/^\(root\): unknown field `priority`: /),
    });
  });

  it('refuses a field of another action (force on an approval)', () => {
    const parsed = parseActionRequest(JSON.stringify({ ...valid, force: true }));
    expect(parsed).toEqual({ ok: false, error: expect.stringContaining('unknown field `force`') });
  });
});
