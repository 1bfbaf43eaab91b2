/**
 * Review (policy check): a rule that an earlier rule always matches first never decides (first
 * match wins), and nothing said so: an approval rule for `ci:*` above one that asks a person for
 * `ci:nightly-*` approves every nightly build, silently. `policy check` now warns
 * `rule-shadowed`, naming both rules and the globs that cover, whenever the cover is provable from
 * the globs alone (`*`, equal globs, a `prefix*` or `*suffix` that holds the other's fixed part).
 * The earlier rule's windows and maxPerHour make no difference: outside them it defers or denies
 * the request itself, it never passes it on. When the cover is not provable, nothing is said.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';
import { captureIo } from '../helpers/cli-io.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-shadowed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type When = { requesters?: string[]; triggers?: string[]; phases?: string[] };
type Rule = { name: string; decision: 'approve' | 'deny' | 'ask'; when?: When } & Record<string, unknown>;

const OFFICE = [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }];
const input = (...rules: Rule[]) => ({
  version: 1,
  approvals: { rules: rules.map((r) => ({ when: {}, ...r })) },
});
const shadowed = (...rules: Rule[]) =>
  policyWarnings(parsePolicy(input(...rules))).filter((w) => w.code === 'rule-shadowed');

const ciApproves: Rule = {
  name: 'CI approves',
  decision: 'approve',
  when: { requesters: ['ci:*'] },
  maxPerHour: 10,
};
const nightlyAsks: Rule = { name: 'nightly asks', decision: 'ask', when: { requesters: ['ci:nightly-*'] } };

describe('policy check on a rule an earlier rule always matches first', () => {
  it('warns about "ci:nightly-*" below "ci:*", naming both rules and the covering glob', () => {
    const warnings = shadowed(ciApproves, nightlyAsks);
    expect(warnings).toHaveLength(1);
    const [warning] = warnings;
    expect(warning?.where).toBe('approvals.rules "nightly asks"');
    expect(warning?.message).toContain('rule 1 "CI approves"');
    expect(warning?.message).toContain('"ci:nightly-*"');
    expect(warning?.message).toContain('"ci:*"');
    expect(warning?.message).toContain('never decides');
  });

  it('warns when the earlier rule has windows and a cap: outside them it defers itself', () => {
    const [warning] = shadowed({ ...ciApproves, windows: OFFICE, outsideWindows: 'deny' }, nightlyAsks);
    expect(warning?.message).toContain('windows');
  });

  it.each<[string, When, When]>([
    [
      'equal lists',
      { requesters: ['ci:deploy'], triggers: ['trg_1'] },
      { requesters: ['ci:deploy'], triggers: ['trg_1'] },
    ],
    ['every list left to its default', {}, {}],
    ['a suffix glob', { requesters: ['*:nightly'] }, { requesters: ['ci:nightly', 'schedule:nightly'] }],
    [
      'each glob of the later list under one of the earlier',
      { requesters: ['ci:a', 'ci:b*'], phases: ['ph_*'] },
      { requesters: ['ci:a', 'ci:b-*'], phases: ['ph_1', 'ph_2*'] },
    ],
  ])('warns on %s', (_name, earlier, later) => {
    const warnings = shadowed(
      { name: 'first', decision: 'deny', when: earlier },
      { name: 'second', decision: 'approve', when: later },
    );
    expect(warnings.map((w) => w.where)).toEqual(['approvals.rules "second"']);
  });

  it.each<[string, When, When]>([
    [
      'the narrower rule first (the shipped order)',
      { requesters: ['ci:nightly-*'] },
      { requesters: ['ci:*'] },
    ],
    ['triggers not covered', { requesters: ['ci:*'], triggers: ['trg_1'] }, { requesters: ['ci:nightly'] }],
    ['one requester not covered', { requesters: ['ci:*'] }, { requesters: ['ci:nightly-*', 'slack:U1'] }],
    ['a glob that only overlaps', { requesters: ['ci:nightly*'] }, { requesters: ['ci:*nightly'] }],
    ['a middle star', { requesters: ['ci:*-nightly'] }, { requesters: ['ci:*'] }],
  ])('says nothing for %s', (_name, earlier, later) => {
    expect(
      shadowed(
        { name: 'first', decision: 'deny', when: earlier },
        { name: 'second', decision: 'approve', when: later },
      ),
    ).toEqual([]);
  });

  it('leaves the shipped policy without warnings', () => {
    expect(policyWarnings(parsePolicy(JSON.parse(readFileSync('policy.json', 'utf8'))))).toEqual([]);
  });

  it('prints the warning in policy check, exit 0', async () => {
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify(input(ciApproves, nightlyAsks)));
    const t = captureIo({ cwd: dir });
    expect(await runCli(['policy', 'check', file], t.io)).toBe(0);
    expect(t.out()).toContain('approvals.rules "nightly asks": never decides');
  });
});
