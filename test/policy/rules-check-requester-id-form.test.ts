/**
 * `policy check` on a requester glob whose source is right but whose id no request carries: a
 * Slack requester is `slack:<user id>` with the id as Slack sends it (`U…`/`W…`, upper-case
 * letters and digits), so `slack:u0admin` or `slack:U0ADMIN ` (a stray space) never matches and
 * the person it names is refused; a rule or action section listing only such an entry is dead.
 * It used to pass without a word; it is now `requester-never-matches`, naming the entry and why.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';
import { captureIo } from '../helpers/cli-io.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-requester-id-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policyWith = (requesters: string[]) => ({
  version: 1,
  approvals: { rules: [{ name: 'admins', decision: 'approve', maxPerHour: 5, when: { requesters } }] },
  actions: { disable_groups: { requesters } },
});

const neverMatching = (requesters: string[]) =>
  policyWarnings(parsePolicy(policyWith(requesters))).filter((w) => w.code === 'requester-never-matches');

describe('policy check on a requester whose id no request carries', () => {
  it.each([
    ['slack:u0admin', 'upper case', 'write "slack:U0ADMIN"'],
    ['slack:U0admin', 'upper case', 'write "slack:U0ADMIN"'],
    ['slack:u*', 'upper case', 'write "slack:U*"'],
    ['slack:U0ADMIN ', 'whitespace', 'write "slack:U0ADMIN"'],
    [' slack:U0ADMIN', 'whitespace', 'write "slack:U0ADMIN"'],
    ['ci:deploy.yml ', 'whitespace', 'write "ci:deploy.yml"'],
    ['slack:@alice', 'Slack user id', 'U…'],
    ['slack:T0001', 'Slack user id', 'U…'],
  ])('warns about "%s" in an approval rule and an action section, once each', (glob, why, fix) => {
    const warnings = neverMatching(['slack:U0OPS', glob]);
    expect(warnings.map((w) => w.where)).toEqual(['approvals.rules "admins"', 'actions.disable_groups']);
    for (const warning of warnings) {
      expect(warning.message).toContain(`"${glob}"`);
      expect(warning.message).toContain(why);
      expect(warning.message).toContain(fix);
    }
  });

  it.each([
    'slack:U0ADMIN',
    'slack:W012A3CDE',
    'slack:U*',
    'slack:*',
    'slack:*ADMIN',
    'ci:github-actions/deploy.yml',
    'events:approve canary',
    'schedule:*',
    '*',
  ])('says nothing about "%s"', (glob) => {
    expect(neverMatching([glob])).toEqual([]);
  });

  it('prints the warning in policy check, exit 0, and fails with --strict', async () => {
    const file = join(dir, 'lower-case.json');
    writeFileSync(file, JSON.stringify(policyWith(['slack:u0admin'])));
    const t = captureIo({ cwd: dir });
    expect(await runCli(['policy', 'check', file], t.io)).toBe(0);
    expect(t.out()).toContain('approvals.rules "admins"');
    expect(t.out()).toContain('"slack:u0admin"');
    expect(await runCli(['policy', 'check', file, '--strict'], captureIo({ cwd: dir }).io)).toBe(1);
  });
});
