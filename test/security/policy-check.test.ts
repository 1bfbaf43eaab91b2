/**
 * Issue 12 item 8: the shipped policy lets only the checked canary event approve, only the
 * canary phase; `policy check` warns (exit 0, `--strict` exit 1) about the patterns that let
 * untrusted events reach a mutation.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { decide } from '../../src/policy/decide.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';
import { buildRuleRequest, ruleMatches } from '../../src/sweeper/event-rules.js';
import type { EventLike } from '../../src/sweeper/types.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');
const shippedInput = JSON.parse(readFileSync(join(REPO, 'policy.json'), 'utf8'));
const shipped = parsePolicy(shippedInput, 'policy.json');
const dir = mkdtempSync(join(tmpdir(), 'autopilot-policy-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date('2026-11-30T10:00:00Z');

/** Every event rule's request for one event, decided by the shipped policy. */
function outcomesFor(event: EventLike) {
  return shipped.sweeper.eventRules
    .filter((rule) => rule.enqueue && ruleMatches(rule, event))
    .map((rule) => {
      const built = buildRuleRequest(rule, event, 'evt-1', NOW);
      if (!built.ok) throw new Error(built.reason);
      const decision = decide(shipped, { request: built.request, now: NOW, pause: { paused: false } });
      return { request: built.request, outcome: decision.outcome, rule: decision.rule };
    });
}

const checked: EventLike = {
  timestamp: String(NOW.getTime() - 60_000),
  name: 'release_checks_passed',
  source: 'ci',
  userID: 'ci-bot',
  value: 'passed',
  metadata: { phase: 'canary', triggerID: 'trg_3', phaseID: 'ph_1' },
};

describe('the shipped policy.json', () => {
  it('approves the checked canary phase from the checks event', () => {
    const [result, ...more] = outcomesFor(checked);
    expect(more).toEqual([]);
    expect(result?.request).toMatchObject({ action: 'approve_phase', triggerId: 'trg_3', phaseId: 'ph_1' });
    expect(result).toMatchObject({ outcome: 'approve', rule: 'canary checks approve the canary phase' });
  });

  it.each([
    ['names another phase', { metadata: { ...checked.metadata, phaseID: 'ph_4' } }],
    ['comes from another source', { source: 'web' }],
    ['is logged by another user', { userID: 'usr_1' }],
    ['has no trigger id of the platform shape', { metadata: { ...checked.metadata, triggerID: '../x' } }],
  ])('queues nothing for an event that %s', (_what, change) => {
    expect(outcomesFor({ ...checked, ...change })).toEqual([]);
  });

  it('denies the canary of a trigger the approval rule does not name, though the event matches "trg_*"', () => {
    const [result, ...more] = outcomesFor({
      ...checked,
      metadata: { ...checked.metadata, triggerID: 'trg_7' },
    });
    expect(more).toEqual([]);
    expect(result?.request).toMatchObject({ triggerId: 'trg_7' });
    expect(result?.outcome).toBe('deny');
  });

  it('denies an approval of another phase even when an event rule asks for it', () => {
    const request = {
      version: 1 as const,
      action: 'approve_phase' as const,
      triggerId: 'trg_7',
      phaseId: 'ph_4',
      requestedBy: { source: 'events' as const, id: 'approve canary after checks' },
      requestedAt: NOW.toISOString(),
    };
    expect(decide(shipped, { request, now: NOW, pause: { paused: false } }).outcome).toBe('deny');
  });

  it('raises no warning', () => {
    expect(policyWarnings(shipped)).toEqual([]);
  });
});

/** The policy as it shipped before: any event rule, any phase, the phase id from the event. */
const permissive = structuredClone(shippedInput);
permissive.approvals.rules[2].when = { requesters: ['events:*'], triggers: ['*'], phases: ['*'] };
delete permissive.approvals.rules[1].maxPerHour;
permissive.sweeper.eventRules[0].match = { name: 'release_checks_passed', 'metadata.phase': 'canary' };

describe('policy check warnings', () => {
  it('names each unsafe pattern with where it is', () => {
    const warnings = policyWarnings(parsePolicy(permissive));
    expect(warnings.map((w) => [w.code, w.where])).toEqual([
      ['approve-without-cap', 'approvals.rules "CI promotes any phase in office hours"'],
      ['events-any-rule', 'approvals.rules "canary checks approve the canary phase"'],
      ['events-any-phase', 'approvals.rules "canary checks approve the canary phase"'],
      ['template-unconstrained', 'sweeper.eventRules "approve canary after checks"'],
      ['template-unconstrained', 'sweeper.eventRules "approve canary after checks"'],
    ]);
    expect(warnings[3]?.message).toContain("triggerId comes from the event's {metadata.triggerID}");
    expect(warnings[4]?.message).toContain("phaseId comes from the event's {metadata.phaseID}");
  });

  it('counts a match of "*" as no constraint, and warns on a webhook URL in the policy', () => {
    const policy = structuredClone(shippedInput);
    policy.sweeper.eventRules[0].match['metadata.phaseID'] = '*';
    policy.notifications = { slackWebhookUrl: 'https://hooks.slack.test/services/T/B/x' };
    const codes = policyWarnings(parsePolicy(policy)).map((w) => w.code);
    expect(codes).toEqual(['template-unconstrained', 'webhook-url-in-policy']);
  });

  it('warns about an unnamed requester that reaches events (e.g. "*")', () => {
    const policy = structuredClone(shippedInput);
    policy.approvals.rules[2].when.requesters = ['*'];
    expect(policyWarnings(parsePolicy(policy)).map((w) => w.code)).toEqual(['events-any-rule']);
  });

  const io = () => captureIo({ cwd: dir, now: () => NOW });

  it('prints warnings with exit 0, and exit 1 with --strict', async () => {
    const file = join(dir, 'permissive.json');
    writeFileSync(file, JSON.stringify(permissive));
    const lenient = io();
    expect(await runCli(['policy', 'check', file], lenient.io)).toBe(0);
    expect(lenient.out()).toContain('Warnings (5):');
    expect(lenient.out()).toContain('may approve any phase of any trigger');
    const strict = io();
    expect(await runCli(['policy', 'check', file, '--strict'], strict.io)).toBe(1);
    expect(strict.out()).toContain('--strict: failing');
  });

  it('passes the shipped policy under --strict', async () => {
    const t = io();
    expect(await runCli(['policy', 'check', join(REPO, 'policy.json'), '--strict'], t.io)).toBe(0);
    expect(t.out()).not.toContain('Warnings');
  });
});
