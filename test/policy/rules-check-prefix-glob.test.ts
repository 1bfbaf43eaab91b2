/**
 * Review (policy check): the shipped policy approved `approve_phase` from an event rule matching
 * `metadata.triggerID: "trg_*"` under an approval rule with `triggers: ["*"]`. Every trigger id
 * starts with `trg_`, so the match constrained nothing: any client SDK could log
 * `release_checks_passed` with any trigger's id and get that trigger's canary approved, and
 * `policy check --strict` passed it. A glob only narrows a client-written field to a family the
 * client picks from; the approval rule's own `triggers`/`phases` list is the real constraint.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');
const shipped = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));
const dir = mkdtempSync(join(tmpdir(), 'autopilot-prefix-glob-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EVENT_RULE = 'approve canary after checks';
const APPROVAL_RULE = 'canary checks approve the canary phase';

/** The shipped policy with the event-approving rule's `when` changed by `patch`. */
function withApproval(patch: (when: { triggers: string[]; phases: string[] }) => void) {
  const input = structuredClone(shipped);
  const rule = input.approvals.rules.find((r: { name: string }) => r.name === APPROVAL_RULE);
  patch(rule.when);
  return input;
}

/** As policy.json shipped: `metadata.triggerID: "trg_*"` in match, every trigger in the approval rule. */
const asShipped = () =>
  withApproval((when) => {
    when.triggers = ['*'];
  });

describe('policy check on a target matched only by a glob', () => {
  it('warns when an event rule approves the trigger its event names, matched only by "trg_*"', () => {
    const input = asShipped();
    expect(input.sweeper.eventRules[0].match['metadata.triggerID']).toBe('trg_*');
    const warnings = policyWarnings(parsePolicy(input));
    expect(warnings.map((w) => [w.code, w.where])).toEqual([
      ['template-glob-only', `sweeper.eventRules "${EVENT_RULE}"`],
    ]);
    const [warning] = warnings;
    expect(warning?.message).toContain('triggerId');
    expect(warning?.message).toContain('"trg_*"');
    expect(warning?.message).toContain(`approvals.rules "${APPROVAL_RULE}"`);
    expect(warning?.message).toContain('when.triggers');
  });

  it('says nothing when the approval rule names the triggers', () => {
    const input = withApproval((when) => {
      when.triggers = ['trg_1', 'trg_2'];
    });
    expect(policyWarnings(parsePolicy(input))).toEqual([]);
  });

  it('warns on a phase matched only by a glob while the approval rule takes every phase', () => {
    const input = withApproval((when) => {
      when.triggers = ['trg_1'];
      when.phases = ['ph_*'];
    });
    input.sweeper.eventRules[0].match['metadata.phaseID'] = 'ph_*';
    const warnings = policyWarnings(parsePolicy(input));
    expect(warnings.map((w) => w.code)).toContain('template-glob-only');
    expect(warnings.find((w) => w.code === 'template-glob-only')?.message).toContain('when.phases');
  });

  it('warns on an archive whose config id is matched only by a prefix glob (no list narrows it)', () => {
    const input = structuredClone(shipped);
    input.actions.archive_config.requesters.push('events:archive on request');
    input.sweeper.eventRules.push({
      name: 'archive on request',
      match: { name: 'config_retired', 'metadata.config': 'cfg_*' },
      enqueue: { action: 'archive_config', configId: '{metadata.config}', reason: 'retired' },
    });
    const warnings = policyWarnings(parsePolicy(input));
    expect(warnings.map((w) => [w.code, w.where])).toEqual([
      ['template-glob-only', 'sweeper.eventRules "archive on request"'],
    ]);
  });

  it('fails policy check --strict on the policy as it shipped', async () => {
    const file = join(dir, 'as-shipped.json');
    writeFileSync(file, JSON.stringify(asShipped()));
    const t = captureIo({ cwd: dir, now: () => new Date('2026-11-30T10:00:00Z') });
    expect(await runCli(['policy', 'check', file, '--strict'], t.io)).toBe(1);
    expect(t.out()).toContain('trg_*');
  });
});
