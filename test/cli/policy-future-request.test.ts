/**
 * The worker refuses a request dated more than five minutes after it is decided (admit.ts,
 * `requested-in-future`: dead-lettered before the policy sees it). `policy test` and
 * `policy explain` decide "as the worker would": a case dated after its decision time is a
 * failing case, not an approval the worker would never give, and explain says the worker refuses it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/run.js';
import { decideCase } from '../../src/policy/cases.js';
import { CaseError } from '../../src/policy/errors.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { admit } from '../../src/worker/admit.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'policy-future-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policy = parsePolicy({
  version: 1,
  approvals: { rules: [{ name: 'CI any time', when: { requesters: ['ci:*'] }, decision: 'approve' }] },
});

const futureCase = {
  name: 'dated after its decision',
  at: '2026-11-30T10:00:00Z',
  request: {
    action: 'approve_phase' as const,
    target: 'trg_1/ph_1',
    requester: 'ci:deploy.yml',
    requestedAt: '2026-11-30T12:00:00Z',
  },
  expect: { outcome: 'approve' as const },
};

describe('a request dated after the decision time', () => {
  it('is refused by the worker before the policy decides', async () => {
    const request = {
      version: 1 as const,
      action: 'approve_phase' as const,
      triggerId: 'trg_1',
      phaseId: 'ph_1',
      requestedBy: { source: 'ci' as const, id: 'deploy.yml' },
      requestedAt: futureCase.request.requestedAt,
    };
    const refusal = await admit(
      request,
      { body: JSON.stringify(request), messageAttributes: {} },
      undefined,
      new Date(futureCase.at),
    );
    expect(refusal?.rule).toBe('requested-in-future');
  });

  it('is a case error in policy test, not an approval', () => {
    expect(() => decideCase(policy, futureCase)).toThrow(CaseError);
    expect(() => decideCase(policy, futureCase)).toThrow(/requested-in-future/);
    // Within the worker's five minutes of skew it is decided as before.
    const skewed = {
      ...futureCase,
      request: { ...futureCase.request, requestedAt: '2026-11-30T10:04:00Z' },
    };
    expect(decideCase(policy, skewed).outcome).toBe('approve');
  });

  it('makes policy explain say the worker refuses it, not only what the policy decides', async () => {
    const policyFile = join(dir, 'policy.json');
    writeFileSync(policyFile, JSON.stringify(policy));
    const requestFile = join(dir, 'request.json');
    writeFileSync(
      requestFile,
      JSON.stringify({
        version: 1,
        action: 'approve_phase',
        triggerId: 'trg_1',
        phaseId: 'ph_1',
        requestedBy: { source: 'ci', id: 'deploy.yml' },
        requestedAt: '2026-11-30T12:00:00Z',
      }),
    );
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: {},
      cwd: REPO,
      now: () => new Date('2031-01-01T00:00:00Z'),
    };
    const code = await runCli(
      ['policy', 'explain', requestFile, '--policy', policyFile, '--at', '2026-11-30T10:00:00Z'],
      io,
    );
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/REFUSED .*requested-in-future/);
    const json: string[] = [];
    await runCli(
      ['policy', 'explain', requestFile, '--policy', policyFile, '--at', '2026-11-30T10:00:00Z', '--json'],
      { ...io, stdout: (t) => json.push(t) },
    );
    expect(JSON.parse(json.join('\n')).refused).toMatchObject({ rule: 'requested-in-future' });
  });
});
