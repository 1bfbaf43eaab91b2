/**
 * `autopilot policy diff` compares freezes (and other named lists) by name. Freeze names need
 * not be unique ("release freeze" twice a year is natural), and two freezes sharing a name
 * collapsed into one: removing or moving the first of them was reported as "decide alike: no
 * change", so a review of a change that drops the Christmas freeze saw nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { diffPolicies } from '../../src/policy/diff.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { captureIo } from '../helpers/cli-io.js';

const freeze = (start: string, end: string) => ({ name: 'release freeze', start, end });
const XMAS = freeze('2026-12-20T00:00:00+01:00', '2026-12-27T00:00:00+01:00');
const JANUARY = freeze('2027-01-10T00:00:00+01:00', '2027-01-12T00:00:00+01:00');
const policy = (freezes: unknown[]) => ({ version: 1, timezone: 'Europe/Berlin', approvals: { freezes } });

describe('policy diff: freezes that share a name', () => {
  it('reports a removed freeze', () => {
    const changes = diffPolicies(parsePolicy(policy([XMAS, JANUARY])), parsePolicy(policy([JANUARY])));
    expect(changes.join('\n')).toMatch(/approvals\.freezes.*removed.*2026-12-20/);
  });

  it('reports a freeze whose dates changed', () => {
    const moved = freeze('2026-12-24T00:00:00+01:00', '2026-12-27T00:00:00+01:00');
    const changes = diffPolicies(parsePolicy(policy([XMAS, JANUARY])), parsePolicy(policy([moved, JANUARY])));
    expect(changes.join('\n')).toContain('2026-12-24');
    expect(changes.join('\n')).toContain('2026-12-20');
  });

  it('never says "decide alike" on the command line when a freeze is gone', async () => {
    const files: Record<string, string> = {
      'old.json': JSON.stringify(policy([XMAS, JANUARY])),
      'new.json': JSON.stringify(policy([JANUARY])),
    };
    const dir = mkdtempSync(join(tmpdir(), 'review-policy-diff-'));
    try {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      const { io, out } = captureIo({ cwd: dir });
      const code = await runCli(['policy', 'diff', 'old.json', 'new.json'], io);
      expect(code).toBe(0);
      expect(out()).not.toContain('decide alike');
      expect(out()).toContain('removed');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('still compares uniquely named rules by name', () => {
    const a = parsePolicy(policy([XMAS]));
    const b = parsePolicy(policy([{ ...XMAS, end: '2026-12-28T00:00:00+01:00' }]));
    expect(diffPolicies(a, b)).toEqual([
      'approvals.freezes "release freeze".end: "2026-12-27T00:00:00+01:00" → "2026-12-28T00:00:00+01:00"',
    ]);
  });
});
