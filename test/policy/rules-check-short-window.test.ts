/**
 * Review (policy check): a window only a few minutes long was accepted without a word, yet a
 * request deferred to it is not looked at when it opens: the release tick sends held requests back
 * once a minute and SQS then delivers them, up to 5 minutes after the wait ends
 * (RELEASE_MARGIN_MS). A window shorter than that can be closed by then, and the request is
 * deferred to the next opening, again and again, until maxDeferHours denies it. `policy check` now
 * warns `window-too-short` for an opening shorter than 10 minutes (twice that delay: one look and
 * one retry), taking windows that adjoin or overlap as the one opening they make.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { parsePolicy } from '../../src/policy/parse.js';
import { policyWarnings } from '../../src/policy/warnings.js';
import { captureIo } from '../helpers/cli-io.js';

const dir = mkdtempSync(join(tmpdir(), 'autopilot-short-window-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Window = { days: string[]; start: string; end: string };
const input = (...windows: Window[]) => ({
  version: 1,
  timezone: 'Europe/Berlin',
  approvals: {
    rules: [
      { name: 'CI deploy slot', decision: 'approve', when: { requesters: ['ci:*'] }, maxPerHour: 5, windows },
    ],
  },
});
const tooShort = (...windows: Window[]) =>
  policyWarnings(parsePolicy(input(...windows))).filter((w) => w.code === 'window-too-short');
const w = (days: string[], start: string, end: string): Window => ({ days, start, end });

describe('policy check on a window too short to be used', () => {
  it('warns about a five-minute window, naming the rule, the window and the bound', () => {
    const warnings = tooShort(w(['mon'], '09:00', '09:05'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.where).toBe('approvals.rules "CI deploy slot"');
    expect(warnings[0]?.message).toContain('windows[0]');
    expect(warnings[0]?.message).toContain('5 minutes');
    expect(warnings[0]?.message).toContain('at least 10 minutes');
  });

  it.each([
    ['nine minutes', [w(['mon'], '09:00', '09:09')]],
    ['the last minutes of a day', [w(['fri'], '23:55', '24:00')]],
    ['a short window on every weekday (one warning)', [w(['mon', 'tue', 'wed'], '12:00', '12:01')]],
    [
      'a short window beside a long one on another day',
      [w(['mon'], '09:00', '17:00'), w(['tue'], '09:00', '09:03')],
    ],
  ])('warns about %s', (_name, windows) => {
    expect(tooShort(...windows)).toHaveLength(1);
  });

  it.each([
    ['ten minutes', [w(['mon'], '09:00', '09:10')]],
    ['office hours', [w(['mon', 'tue'], '09:00', '17:00')]],
    ['ten minutes across midnight', [w(['mon'], '23:55', '00:05')]],
    ['windows that adjoin across midnight', [w(['mon'], '23:55', '24:00'), w(['tue'], '00:00', '08:00')]],
    ['windows that adjoin across the week', [w(['sun'], '23:58', '24:00'), w(['mon'], '00:00', '01:00')]],
    ['a short window inside a long one', [w(['mon'], '09:00', '17:00'), w(['mon'], '12:00', '12:03')]],
  ])('says nothing about %s', (_name, windows) => {
    expect(tooShort(...windows)).toEqual([]);
  });

  it('prints the warning in policy check, exit 0', async () => {
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify(input(w(['mon'], '09:00', '09:05'))));
    const t = captureIo({ cwd: dir });
    expect(await runCli(['policy', 'check', file], t.io)).toBe(0);
    expect(t.out()).toContain('approvals.rules "CI deploy slot": windows[0]');
  });
});
