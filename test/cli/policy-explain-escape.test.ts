/**
 * `autopilot policy explain` prints a request's fields (a requester id any queue sender chooses,
 * group names an event fills in: the request schema lets control characters through both) and a
 * reason that repeats them. An operator explaining a request taken from the DLQ got an escape
 * sequence driving the terminal and a newline forging a line ("outcome   approve"). Every other
 * CLI output shows such fields escaped (src/cli/io.ts `printable`); explain now does too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { captureIo } from '../helpers/cli-io.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'review-policy-explain-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ESC = '\u001b';

const request = {
  version: 1,
  action: 'disable_groups',
  experimentId: 'exp_1',
  groupNames: [`g1${ESC}[2J\noutcome   approve`],
  requestedBy: { source: 'ci', id: `deploy${ESC}[32m` },
  requestedAt: '2026-11-23T10:00:00Z',
  requestId: 'r1',
};

describe('policy explain: untrusted request fields', () => {
  it('are shown escaped: no escape sequence, no forged line', async () => {
    writeFileSync(join(dir, 'policy.json'), readFileSync(join(REPO, 'policy.json')));
    writeFileSync(join(dir, 'request.json'), JSON.stringify(request));
    const { io, out, err } = captureIo({ cwd: dir });
    const code = await runCli(
      ['policy', 'explain', 'request.json', '--at', '2026-11-23T10:00:00Z', '--policy', 'policy.json'],
      io,
    );
    expect(code, err()).toBe(0);
    expect(out()).not.toContain(ESC);
    expect(
      out()
        .split('\n')
        .filter((line) => line.startsWith('outcome')),
    ).toEqual(['outcome   deny']);
    expect(out()).toContain('deploy\\u001b[32m');
  });
});
