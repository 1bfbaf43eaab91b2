/** `autopilot policy diff`: the shipped policy against changed copies, in words. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'autopilot-policy-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const shipped = () => JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));

async function diff(changed: unknown, ...flags: string[]) {
  const file = join(dir, `changed-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(changed));
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: {},
    cwd: REPO,
    now: () => new Date('2026-11-30T10:00:00Z'),
  };
  const code = await runCli(['policy', 'diff', 'policy.json', file, ...flags], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const ruleIndex = (policy: { approvals: { rules: Array<{ name: string }> } }, name: string) =>
  policy.approvals.rules.findIndex((r) => r.name === name);

describe('autopilot policy diff', () => {
  it('says two equal policies decide alike', async () => {
    const result = await diff(shipped());
    expect(result.code).toBe(0);
    expect(result.out).toContain('decide alike');
  });

  it('names a reorder that sends some requests to another rule first, and one that changes nothing', async () => {
    const policy = shipped();
    const nightly = ruleIndex(policy, 'nightly promotions ask a human');
    const [moved] = policy.approvals.rules.splice(nightly, 1);
    policy.approvals.rules.push(moved); // now below "CI promotes any phase…", which also matches ci:nightly-*
    const result = await diff(policy);
    expect(result.out).toContain(
      '"CI promotes any phase in office hours" moved above "nightly promotions ask a human" — requests from ci:*',
    );
    expect(result.out).toContain(
      'now meet "CI promotes any phase in office hours" first: approve instead of ask',
    );
    // The nightly rule also passed rules that match other requesters only: no decision changes there.
    expect(result.out).toMatch(
      /moved above "nightly promotions ask a human" — they match no request in common/,
    );
  });

  it('lists added and removed rules, freezes, grants, protects, caps and sweeper settings', async () => {
    const policy = shipped();
    policy.approvals.rules.push({
      name: 'hotfixes any time',
      when: { requesters: ['ci:hotfix-*'], triggers: ['*'], phases: ['*'] },
      decision: 'approve',
      maxPerHour: 5,
    });
    policy.approvals.rules.splice(ruleIndex(policy, 'anything else from automation asks a human'), 1);
    policy.approvals.freezes.push({
      name: 'launch week',
      start: '2027-02-01T00:00:00Z',
      end: '2027-02-08T00:00:00Z',
    });
    policy.approvals.maxDeferHours = 24;
    policy.actions.archive_config.protect.push('pricing_*');
    policy.actions.archive_config.maxPerDay = 5;
    policy.chat.grants.U0OPS = ['pause'];
    policy.sweeper.staleConfigs.staleAfterDays = 45;
    const { out } = await diff(policy);
    expect(out).toContain('approvals.rules: added "hotfixes any time"');
    expect(out).toContain('approvals.rules: removed "anything else from automation asks a human"');
    expect(out).toContain('approvals.freezes: added "launch week"');
    expect(out).toContain('approvals.maxDeferHours: 72 → 24');
    expect(out).toContain('actions.archive_config.protect: added "pricing_*"');
    expect(out).toContain('actions.archive_config.maxPerDay: 20 → 5');
    expect(out).toContain('chat.grants.U0OPS: set to ["pause"]');
    expect(out).toContain('sweeper.staleConfigs.staleAfterDays: 30 → 45');
  });

  it("describes a changed rule's window field by field", async () => {
    const policy = shipped();
    const ci = policy.approvals.rules[ruleIndex(policy, 'CI promotes any phase in office hours')];
    ci.windows[0].end = '18:00';
    ci.windows[0].days = ['mon', 'tue', 'wed', 'thu'];
    const { out } = await diff(policy);
    expect(out).toContain('"CI promotes any phase in office hours".windows: ');
    expect(out).toMatch(/end.*"17:00" → "18:00"|18:00/);
  });

  it('exits 1 for an invalid policy, with the zod path', async () => {
    const policy = shipped();
    policy.approvals.otherwise = 'maybe';
    const result = await diff(policy);
    expect(result.code).toBe(1);
    expect(result.err).toContain('approvals.otherwise');
  });

  it('prints JSON for machines', async () => {
    const policy = shipped();
    policy.approvals.maxDeferHours = 24;
    expect(JSON.parse((await diff(policy, '--json')).out)).toEqual({
      changes: ['approvals.maxDeferHours: 72 → 24'],
    });
  });
});
