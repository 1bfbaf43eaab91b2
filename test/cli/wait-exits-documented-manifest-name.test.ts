/**
 * Two small CLI defects an operator meets from the README and the command line:
 * - README's CLI block summarised `enqueue … --wait` as "exit 0 approved, 3 refused, 4 still
 *   held": a gate written from that line treats 5 (ended refused, but an attempt may have made
 *   the change) as unknown. The line now names every exit --wait has (WAIT_EXIT).
 * - `autopilot slack manifest --name ''` printed a manifest whose app and bot are named "" (Slack
 *   refuses it at paste time, far from the command). An empty or blank name is a usage error, exit 2.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/bundling.js';
import { runCli } from '../../src/cli/run.js';
import { WAIT_EXIT } from '../../src/cli/wait.js';
import { captureIo } from '../helpers/cli-io.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

describe('README: the one-line summary of enqueue --wait', () => {
  it('names every exit code --wait has', () => {
    const lines = readme.split('\n');
    const at = lines.findIndex((l) => /^npx autopilot enqueue approve .*--wait/.test(l));
    expect(at, 'the CLI block shows enqueue --wait').toBeGreaterThan(-1);
    const summary = lines[at + 1] ?? '';
    for (const code of Object.values(WAIT_EXIT))
      expect(summary, `exit ${code} in: ${summary}`).toMatch(new RegExp(`\\b${code}\\b`));
  });
});

describe('autopilot slack manifest --name', () => {
  const url = 'https://abc123.execute-api.eu-west-1.amazonaws.com';
  it.each([[''], ['   ']])('refuses the empty name %j with exit 2 and prints no manifest', async (name) => {
    const t = captureIo();
    expect(await runCli(['slack', 'manifest', '--url', url, '--name', name], t.io)).toBe(2);
    expect(t.err()).toContain('--name');
    expect(t.out()).toBe('');
  });

  it('still takes a real name', async () => {
    const t = captureIo();
    expect(await runCli(['slack', 'manifest', '--url', url, '--name', 'release-bot'], t.io)).toBe(0);
    expect(JSON.parse(t.out())).toMatchObject({ display_information: { name: 'release-bot' } });
  });
});
