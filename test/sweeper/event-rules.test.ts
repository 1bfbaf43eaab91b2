/**
 * Event rules, templates and event identity: glob matching on every field and on nested
 * metadata paths, templates filled in every string (a missing field skips with its name),
 * the built request validated, and identities/request ids that stay the same across runs.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/policy/parse.js';
import { policySchemas } from '../../src/policy/schema.js';
import {
  buildRuleRequest,
  ruleMatches,
  ruleNotification,
  ruleRequestId,
} from '../../src/sweeper/event-rules.js';
import { canonicalJson, eventHash } from '../../src/sweeper/identity.js';
import { fillTemplate } from '../../src/sweeper/templates.js';
import type { EventLike } from '../../src/sweeper/types.js';

const now = new Date('2026-11-22T03:00:00Z');
const event: EventLike = {
  timestamp: '1795230000000',
  name: 'release_checks_passed',
  source: 'ci',
  value: 'passed',
  userID: 'ci-bot',
  metadata: { phase: 'canary', triggerID: 'trg_7', phaseID: 'ph_2', checks: 14, nested: { env: 'prod' } },
};
const rule = (r: unknown) => policySchemas().eventRule.parse(r);

describe('event rules', () => {
  it('match every given field by glob, metadata paths included; a missing field never matches', () => {
    expect(
      ruleMatches(
        rule({ name: 'r', match: { name: 'release_*', 'metadata.phase': 'canary' }, notify: true }),
        event,
      ),
    ).toBe(true);
    expect(
      ruleMatches(
        rule({ name: 'r', match: { source: 'c*', userID: '*-bot', value: 'pass*' }, notify: true }),
        event,
      ),
    ).toBe(true);
    expect(
      ruleMatches(
        rule({ name: 'r', match: { 'metadata.nested.env': 'prod', 'metadata.checks': '1*' }, notify: true }),
        event,
      ),
    ).toBe(true);
    expect(ruleMatches(rule({ name: 'r', match: { 'metadata.phase': 'ramp_*' }, notify: true }), event)).toBe(
      false,
    );
    expect(ruleMatches(rule({ name: 'r', match: { 'metadata.absent': '*' }, notify: true }), event)).toBe(
      false,
    );
  });

  it('fill templates in every string, also inside arrays, and name the missing fields', () => {
    expect(fillTemplate({ a: '{metadata.triggerID}/{metadata.phaseID}', b: ['{name}', 3] }, event)).toEqual({
      ok: true,
      value: { a: 'trg_7/ph_2', b: ['release_checks_passed', 3] },
    });
    expect(fillTemplate({ a: '{metadata.gone}', b: '{metadata.alsoGone}' }, event)).toEqual({
      ok: false,
      missing: ['metadata.gone', 'metadata.alsoGone'],
    });
  });

  it('build a validated request from events, with a request id that depends only on rule and event', () => {
    const r = rule({
      name: 'approve canary after checks',
      match: { name: 'release_checks_passed' },
      enqueue: { action: 'approve_phase', triggerId: '{metadata.triggerID}', phaseId: '{metadata.phaseID}' },
    });
    const id = `${eventHash(event)}.0`;
    const built = buildRuleRequest(r, event, id, now);
    expect(built).toEqual({
      ok: true,
      request: {
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_7',
        phaseId: 'ph_2',
        requestedBy: { source: 'events', id: 'approve canary after checks' },
        requestedAt: now.toISOString(),
        reason: expect.stringContaining('release_checks_passed'),
        requestId: ruleRequestId('approve canary after checks', id),
      },
    });
    const later = buildRuleRequest(r, event, id, new Date(now.getTime() + 60_000));
    expect(later.ok && later.request.requestId).toBe(built.ok && built.request.requestId);
    expect(ruleRequestId('a b', id)).not.toBe(ruleRequestId('a-b', id));
  });

  it('skip an event when the template misses a field or the result is not a valid request', () => {
    const r = rule({
      name: 'x',
      match: {},
      enqueue: { action: 'approve_phase', triggerId: '{metadata.nope}', phaseId: 'p' },
    });
    expect(buildRuleRequest(r, event, 'h.0', now)).toEqual({
      ok: false,
      reason: 'missing field metadata.nope',
    });
    const bad = rule({
      name: 'x',
      match: {},
      enqueue: { action: 'approve_phase', triggerId: 'has space', phaseId: 'p' },
    });
    const built = buildRuleRequest(bad, event, 'h.0', now);
    expect(built.ok).toBe(false);
    expect(!built.ok && built.reason).toContain('triggerId');
  });

  it('notify with a short line naming the event and the rule', () => {
    const text = ruleNotification(rule({ name: 'tell', match: {}, notify: true }), event);
    expect(text).toContain('*release_checks_passed*');
    expect(text).toContain('rule "tell"');
    expect(text.length).toBeLessThan(500);
  });

  it('stays short whatever a client logged: a huge event name or timestamp is cut, not posted whole', () => {
    const huge = { ...event, name: `release_${'x'.repeat(50_000)}`, timestamp: `t${'9'.repeat(50_000)}` };
    const text = ruleNotification(rule({ name: 'tell', match: {}, notify: true }), huge);
    expect(text.length).toBeLessThan(600);
    expect(text).toContain('rule "tell"');
  });
});

describe('event rule names', () => {
  // The name is part of every request id a rule builds: two alike would share ids, and the
  // worker would drop the second rule's requests as copies of the first's.
  it('refuses a policy whose event rules share a name, naming the second one', () => {
    const named = (name: string, enqueue: Record<string, unknown>) => ({
      name,
      match: { name: 'release_checks_passed' },
      enqueue,
    });
    const approve = { action: 'approve_phase', triggerId: '{metadata.triggerID}', phaseId: 'canary' };
    const disable = {
      action: 'disable_groups',
      experimentId: '{metadata.experimentID}',
      groupNames: ['old'],
    };
    const policy = (names: [string, string]) => ({
      version: 1,
      actions: { archive_config: { requesters: ['schedule:*'] } },
      sweeper: { eventRules: [named(names[0], approve), named(names[1], disable)] },
    });
    expect(() => parsePolicy(policy(['on checks', 'on checks']))).toThrow(
      'sweeper.eventRules[1].name: duplicate event rule name "on checks"',
    );
    expect(parsePolicy(policy(['on checks', 'on checks (disable)'])).sweeper.eventRules).toHaveLength(2);
  });
});

describe('event identity', () => {
  it('ignores metadata key order and tells different content apart', () => {
    const reordered = {
      ...event,
      metadata: { nested: { env: 'prod' }, checks: 14, phaseID: 'ph_2', triggerID: 'trg_7', phase: 'canary' },
    };
    expect(eventHash(reordered)).toBe(eventHash(event));
    expect(eventHash({ ...event, userID: 'other' })).not.toBe(eventHash(event));
    expect(eventHash({ ...event, timestamp: '1795230000001' })).not.toBe(eventHash(event));
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });
});
