/**
 * `autopilot policy check <file>` prints the file's policy digest in the short form audit records
 * keep (`policyDigest`), so people can match a record to a policy file. It is the digest of the
 * normalized policy: the one a bundle built from the file carries, whatever the file's layout.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { shortPolicyDigest } from '../../src/policy/digest.js';
import { normalizePolicyFile } from '../../src/wiring/policy-file.js';
import { captureIo } from '../helpers/cli-io.js';

const dir = mkdtempSync(join(tmpdir(), 'policy-digest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function digestPrinted(file: string): Promise<string | undefined> {
  const t = captureIo();
  expect(await runCli(['policy', 'check', file], t.io)).toBe(0);
  return /^Policy digest: ([0-9a-f]+)$/m.exec(t.out())?.[1];
}

describe('autopilot policy check', () => {
  it("prints the policy's digest as the bundle built from it names it", async () => {
    // The point of this test is the file's real digest: what a bundle of it would carry.
    const file = resolve('policy.json');
    const printed = await digestPrinted(file);
    expect(printed).toMatch(/^[0-9a-f]{12}$/);
    expect(printed).toBe(shortPolicyDigest(normalizePolicyFile(file).sha256));
  });

  it('prints the same digest for the same policy laid out otherwise, and another for another policy', async () => {
    const policy = {
      version: 1,
      timezone: 'UTC',
      approvals: { rules: [{ name: 'CI', when: { requesters: ['ci:*'] }, decision: 'approve' }] },
    };
    const compact = join(dir, 'compact.json');
    const spaced = join(dir, 'spaced.json');
    const other = join(dir, 'other.json');
    writeFileSync(compact, JSON.stringify(policy));
    writeFileSync(spaced, `${JSON.stringify(policy, null, 4)}\n\n`);
    writeFileSync(other, JSON.stringify({ ...policy, timezone: 'Europe/Berlin' }));
    const first = await digestPrinted(compact);
    expect(await digestPrinted(spaced)).toBe(first);
    expect(await digestPrinted(other)).not.toBe(first);
  });
});
