import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS, parseCommand } from '../../src/webhook/commands.js';

describe('the /autopilot grammar', () => {
  it.each([
    ['', { name: 'help' }],
    ['help', { name: 'help' }],
    ['  HELP  ', { name: 'help' }],
    ['approve trg_1 ph_2', { name: 'approve', triggerId: 'trg_1', phaseId: 'ph_2' }],
    [
      'approve trg_1 ph_2 smoke tests   green &amp; &lt;ok&gt;',
      { name: 'approve', triggerId: 'trg_1', phaseId: 'ph_2', reason: 'smoke tests green & <ok>' },
    ],
    [
      'disable-groups exp_checkout test test_b test',
      { name: 'disable-groups', experimentId: 'exp_checkout', groups: ['test', 'test_b'] },
    ],
    ['pause bad\u0000bytes\u0007 \uFFFF', { name: 'pause', reason: 'bad bytes' }],
    ['archive new_checkout_copy', { name: 'archive', configId: 'new_checkout_copy' }],
    ['archive old_cfg replaced by v2', { name: 'archive', configId: 'old_cfg', reason: 'replaced by v2' }],
    ['role admin', { name: 'role', roleId: 'admin' }],
    ['segment beta_users', { name: 'segment', segmentId: 'beta_users' }],
    ['segments', { name: 'segments', page: 1 }],
    ['segments 3', { name: 'segments', page: 3 }],
    ['metrics add_to_cart', { name: 'metrics', eventName: 'add_to_cart' }],
    ['events', { name: 'events', page: 1 }],
    ['events 12', { name: 'events', page: 12 }],
    ['pause', { name: 'pause' }],
    ['pause incident 4711', { name: 'pause', reason: 'incident 4711' }],
    ['resume', { name: 'resume' }],
    ['status', { name: 'status' }],
  ])('parses %j', (text, command) => {
    expect(parseCommand(text)).toEqual({ ok: true, command });
  });

  it.each([
    ['approve', 'missing triggerId', 'approve <triggerId> <phaseId> [reason…]'],
    ['approve trg_1', 'missing phaseId', 'approve <triggerId> <phaseId> [reason…]'],
    ['approve trg/1 ph_1', 'triggerId `trg/1` may only hold', undefined],
    ['approve ../admin ph_1', 'triggerId `../admin` may only hold', undefined],
    [`approve ${'t'.repeat(129)} ph_1`, 'triggerId is longer than 128 characters', undefined],
    ['disable-groups exp_1', 'name at least one group', 'disable-groups <experimentId> <group>…'],
    ['disable-groups exp_1 grp%20', 'group `grp%20` may only hold', undefined],
    ['archive', 'missing configId', 'archive <configId> [reason…]'],
    ['role', 'missing roleId', 'role <roleId>'],
    ['role admin extra', 'unexpected `extra`', undefined],
    ['segment', 'missing segmentId', undefined],
    ['segments 0', 'page must be a whole number from 1 to 10000', 'segments [page]'],
    ['events -1', 'page must be a whole number', undefined],
    ['events two', 'page must be a whole number', undefined],
    ['metrics', 'missing eventName', undefined],
    ['resume now', 'unexpected `now`', 'resume'],
    ['status please', 'unexpected `please`', undefined],
    [`pause ${'x'.repeat(1001)}`, 'the reason is longer than 1000 characters', undefined],
  ])('explains what is wrong with %j', (text, error, usage) => {
    const parsed = parseCommand(text);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toContain(error);
    if (usage) expect(parsed.usage).toBe(usage);
  });

  // One rule for request ids, the action-request schema's: every id a producer may send can be
  // asked about or cancelled, and no id that no request can carry is accepted.
  it.each([
    ['why _nightly-1', { name: 'why', requestId: '_nightly-1' }],
    ['why ci@build/42:a.b', { name: 'why', requestId: 'ci@build/42:a.b' }],
    [`why ${'r'.repeat(128)}`, { name: 'why', requestId: 'r'.repeat(128) }],
    ['cancel -nightly-1 wrong phase', { name: 'cancel', requestId: '-nightly-1', reason: 'wrong phase' }],
  ])('takes the request ids the action-request schema takes: %j', (text, command) => {
    expect(parseCommand(text)).toEqual({ ok: true, command });
  });

  it.each([
    [`why ${'r'.repeat(129)}`, '<=128 characters'],
    [`cancel ${'r'.repeat(150)} too long`, '<=128 characters'],
    ['why req#1', 'letters, digits and . _ : @ / - only'],
  ])('refuses the request ids the action-request schema refuses: %j', (text, error) => {
    const parsed = parseCommand(text);
    expect(parsed).toMatchObject({ ok: false });
    expect(!parsed.ok && parsed.error).toContain(error);
  });

  it('names an unknown command without a usage line', () => {
    expect(parseCommand('deploy everything')).toEqual({ ok: false, error: 'unknown command `deploy`' });
  });

  it('keeps control characters and backticks out of its messages', () => {
    const parsed = parseCommand('role a`b\u0007c');
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toContain('`a?b?c`');
  });

  it('accepts at most 50 groups', () => {
    const groups = Array.from({ length: 51 }, (_, i) => `g${i}`).join(' ');
    expect(parseCommand(`disable-groups exp_1 ${groups}`)).toMatchObject({
      ok: false,
      error: 'at most 50 groups at a time',
    });
  });

  it('documents every command of the chat grammar and nothing else (docs/chat.md)', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../docs/chat.md', import.meta.url)), 'utf8');
    const documented = [...doc.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);
    expect(documented.length).toBeGreaterThan(0);
    expect(COMMANDS.map((c) => c.name).sort()).toEqual(documented.sort());
  });
});
