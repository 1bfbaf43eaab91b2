/**
 * A misspelt key in a case's short-form request (`requestor` for `requester`) made a bad cases
 * file whose only line was `cases[0].request: Invalid input`: the request may be a short form or
 * a full action request, and zod reports the union as a whole. README promises the zod path of
 * what is wrong; the issues of the form the case uses (full when it has `version`) are shown.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'review-policy-cases-typo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(request: unknown) {
  writeFileSync(join(dir, 'policy.json'), readFileSync(join(REPO, 'policy.json')));
  const cases = {
    cases: [{ name: 'typo', at: '2026-11-30T10:00', request, expect: { outcome: 'approve' } }],
  };
  writeFileSync(join(dir, 'cases.json'), JSON.stringify(cases));
  const { io, out, err } = captureIo({ cwd: dir });
  try {
    return {
      code: await runCli(['policy', 'test', 'policy.json', 'cases.json'], io),
      out: out(),
      err: err(),
    };
  } catch (error) {
    return { code: -1, out: out(), err: String(error) };
  }
}

describe('policy test: a bad request in a case', () => {
  it('names the misspelt key of a short form (exit 2)', async () => {
    const result = await run({ action: 'approve_phase', target: 'trg_1/ph_2', requestor: 'ci:deploy.yml' });
    expect(result.code).toBe(2);
    expect(result.err).toContain('cases[0].request.requester');
    expect(result.err).toContain('requestor');
  });

  it('names what a full request lacks', async () => {
    const result = await run({ version: 2, action: 'approve_phase' });
    expect(result.code).toBe(2);
    expect(result.err).toContain('cases[0].request.version');
  });
});
